"""Tests of the LLM judge (ragtui.core.judge), against a real local HTTP server."""
