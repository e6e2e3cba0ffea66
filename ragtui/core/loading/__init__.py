"""Stage 1, loading: files (runs, gold sets, configs) into validated, canonical frames.

records (raw native records), fast_jsonl (the polars fast path), normalize (field-by-field
validation into schema rows), schema (the canonical columns), runs and gold (one run, one gold
set), inputs (what a comparison loads), config (targets and settings), validation (`ragtui
validate`), labels (people's calibration labels: the sidecar JSONL replayed) and label_writer (appended to),
own_files (ragtui's own files: where they go, and never read as runs). A peer tool's file is read by `ragtui.core.importers` and joins here.
"""
