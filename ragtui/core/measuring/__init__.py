"""Stage 2, measuring: per-question outcomes and the aggregate metrics of each run.

evaluate (a run joined to its gold set, every per-question outcome), retrieval (recall@k,
precision, MRR, nDCG over whole columns), metrics (each metric's formula, aggregates
overall and per category; what each metric is, and its values, in metric_specs),
textnorm (abstention phrases, matching text), calibration (judge against human labels, the judge's bias), ppi (the PPI++ estimator),
correction (faithfulness and utility corrected by sampled labels), calibration_queue (the
seeded, stratified random order of answers to label); label_values holds what calibration
and correction hand over, as plain values (neither it nor metric_specs imports polars).
"""
