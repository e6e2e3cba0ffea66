"""Small builders for judge tests: records, runs, settings that retry fast."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ragtui.core.judge.settings import JudgeSettings
from ragtui.core.loading.records import RawRun

REPO = Path(__file__).resolve().parents[2]
SECRET = "sk-test-Zq8RkV3nT0pSECRET0123456789"


def record(qid: str, directive: str = "", *, answer: str | None = None, **extra) -> dict:
    """A run record whose question carries a fake-server directive like "[[429ms]]"."""
    return {
        "id": qid,
        "question": f"Quelle est la regle numero {qid} ? {directive}".strip(),
        "retrieved": [
            {"id": f"p_{qid}_a", "text": f"Article {qid} — La periode d'essai des cadres est de quatre mois.", "score": 0.9},
            {"id": f"p_{qid}_b", "text": "Charte informatique — Le materiel reste la propriete de l'entreprise.", "score": 0.5},
        ],
        "answer": answer if answer is not None else "La periode d'essai dure quatre mois. Elle est renouvelable une fois.",
        "cited": [f"p_{qid}_a"],
        **extra,
    }


def raw_run(records: list[dict], meta: dict | None = None, path: str = "run.jsonl") -> RawRun:
    return RawRun(Path(path), dict(meta or {}), records, list(range(2, len(records) + 2)))


def write_run(path: Path, records: list[dict], meta: dict | None = None) -> Path:
    lines = ([json.dumps({"run": meta}, ensure_ascii=False)] if meta else []) + [json.dumps(r, ensure_ascii=False) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def settings_for(server_url: str, provider: str = "openai", cache_dir: Path | None = None, **overrides) -> JudgeSettings:
    """Settings for the fake server: short timeout, millisecond backoffs, a recognisable key."""
    base = {"openai": f"{server_url}/v1", "anthropic": server_url, "ollama": server_url}[provider]
    values = dict(
        provider=provider,
        model={"openai": "gpt-4o-mini", "anthropic": "claude-sonnet-4-5", "ollama": "qwen2.5:14b"}[provider],
        base_url=base,
        api_key=SECRET,
        timeout=1.0,
        backoff_base=0.01,
        backoff_max=0.05,
        max_retries=3,
        concurrency=4,
        cache_dir=cache_dir,
    )
    values.update(overrides)
    return JudgeSettings(**values)


def cli_command(run: Path, out: Path, url: str, *extra: str) -> list[str]:
    """`python -m ragtui judge` against the fake server's OpenAI route, retrying fast."""
    return [
        sys.executable, "-m", "ragtui", "judge", str(run), "-o", str(out),
        "--provider", "openai", "--model", "gpt-4o-mini", "--base-url", f"{url}/v1",
        "--concurrency", "4", "--backoff", "0.01", "--timeout", "5", *extra,
    ]  # fmt: skip


def cli_env() -> dict[str, str]:
    """The environment of a CLI subprocess: the test key set, this checkout importable."""
    return {**os.environ, "OPENAI_API_KEY": SECRET, "PYTHONPATH": str(REPO)}
