"""Stage 3, comparing: run B against run A, and the report that renders the result.

compare (Δ, interval, verdict, per-question status and cause), stats (paired bootstrap,
exact McNemar), question_diff (what changed for one question), report (the JSON document
that the text, markdown and dashboard views render), report_calibration (its calibration
section and `corrected` objects).
"""
