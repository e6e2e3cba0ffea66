"""Stage 3, comparing: run B against run A, and the report that renders the result.

compare (Δ, interval, verdict, per-question status and cause), result (the `Comparison`
it returns, which every view renders), run_summary (each run's counts, recall curve and
judge trust), run_warnings (what every view must say), stats (paired bootstrap, exact
McNemar), question_diff (what changed for one question), report (the JSON document that
the text and markdown views render), report_calibration (its calibration section and
`corrected` objects).
"""
