"""The ragtui engine, without a UI.

Everything the screen and CI show is computed here: loading and validating gold sets
and run files into polars frames, the retrieval / faithfulness / utility / abstention
metrics per category, the comparison of two runs with its uncertainty, the judge client
and the importers of peer tools' files. Nothing in this package imports textual or rich
(a test proves it); the UI calls the core, never the other way round.
"""
