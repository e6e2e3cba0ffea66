"""The generator of ragtui's bundled sample evaluation (`sample_data/`).

Run it with `python tools/make_sample_data.py`. Only the standard library and PyYAML:
retrieval is a real BM25 over the hand-written corpus (`text`, `bm25`, `retrieval`), the
answers and judge verdicts are synthesised from what was retrieved (`synthesis`,
`judging`), and `runs` / `writers` turn them into the files ragtui reads. Every random
draw comes from `random.Random` seeded with a fixed string, so a second run writes the
same bytes.
"""
