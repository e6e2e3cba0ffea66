"""The LLM judge: faithfulness sentence by sentence and utility 1–5, over HTTP.

API for the app (the TUI re-judges the selected question with a key)::

    from ragtui.core.judge import JudgeSettings, judge_record

    settings = JudgeSettings.from_config(
        config_path_or_mapping_or_None,          # ragtui.yaml's `judge:` section, if any
        provider="anthropic", model="claude-sonnet-4-5",
        cache_dir=Path("judged.jsonl.cache"),    # share the CLI's cache: no call paid twice
        k=run_meta.get("k", 5),
    )                                            # or JudgeSettings.from_env("openai", "gpt-4.1-mini", ...)
    judge = await judge_record(record, settings, gold=gold_record_or_None)
    # -> {"model", "provider", "prompt_version", "faithfulness": {"sentences": [...]},
    #     "utility": {"score", "reason"}, "error": None | "<why>", "usage": {...}}

`judge_record(record: dict, settings: JudgeSettings, *, gold: dict | None = None) -> dict`
never raises for a failed call or an unusable reply (those come back with `error` set
and the reply in `raw`); it raises InputError only for unusable settings (no model, a
missing API key, a broken prompt template). Call it from an async worker; it opens and
closes its own HTTP client. The record is not modified. Other entry points:
`judge_run(raw_run, settings, gold=...)` (a whole run, used by `ragtui judge`) and
`JudgeSession` (many questions on one client).

Modules: settings (JudgeSettings), inputs (what the judge sees), prompts (templates in
prompts/*.txt, versioned), fencing (nonce-tagged blocks the text cannot close), providers (OpenAI-compatible, Anthropic, Ollama wire
formats), client (HTTP, retries, concurrency), retry (the policy), cache (one file per
call), parsing (tolerant extraction, strict validation), pricing (prices.yaml),
lexical (the offline approximate judge), judging (one question), runner (a run),
sentences (how an answer splits), redaction (keys never leak), batch/ (the same judge
through the providers' batch APIs, `ragtui judge --batch`). The stderr progress
line is the CLI's (`ragtui.cli.judge_progress`). Importing this package is
cheap: httpx loads only when a network judge starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ragtui.core.judge.judging import JudgeSession, judge_record
    from ragtui.core.judge.runner import judge_run
    from ragtui.core.judge.settings import JudgeSettings

__all__ = ["JudgeSettings", "JudgeSession", "judge_record", "judge_run"]

_EXPORTS = {
    "JudgeSettings": "ragtui.core.judge.settings",
    "JudgeSession": "ragtui.core.judge.judging",
    "judge_record": "ragtui.core.judge.judging",
    "judge_run": "ragtui.core.judge.runner",
}


def __getattr__(name: str) -> Any:
    """Load the public names on first use, so `import ragtui.core.judge` stays light."""
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'ragtui.core.judge' has no attribute {name!r}")
