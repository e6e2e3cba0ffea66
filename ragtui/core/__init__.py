"""The ragtui engine, without a UI.

The folders follow the stages a comparison goes through, top-down:

- `loading/`   files (runs, gold sets, ragtui.yaml) into validated, canonical frames;
- `importers/` the files of peer tools (RAGAS, promptfoo, inspect_ai, DeepEval, TREC);
- `measuring/` per-question outcomes and each run's metrics (recall@k is in
  `measuring/retrieval.py`);
- `comparing/` B against A: Δ, intervals, verdicts, statuses, and the report document;
- `judge/`     the LLM judge (prompts, providers, cache, runner) and sentence splitting.

`session.py` chains the stages from file paths to a Comparison, for the CLI and the app.
Shared basics sit at the top: errors, atomic writes, sanitising untrusted text, model
families, and the detector of text that addresses the judge (`judge_directed.py`: the
report and the app use it without loading the judge). Nothing in this package imports textual, rich or the CLI (import-linter and a
test check it); the UI calls the core, never the other way round.
"""
