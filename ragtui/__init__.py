"""ragtui: compare two runs of a RAG system, in the terminal or headless for CI."""

__version__ = "0.1.0"
