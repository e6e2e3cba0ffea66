"""Fixtures of the judge tests: a fake LLM server on 127.0.0.1, started per test."""

from __future__ import annotations

import pytest

from tests.judge.fake_llm import FakeLLM


@pytest.fixture
def fake_llm():
    """A running fake server (default behaviour: well-formed verdicts, no latency)."""
    with FakeLLM() as server:
        yield server


@pytest.fixture
def make_fake():
    """Start servers with options: make_fake(reject_json_schema=True, hold_after=5, …)."""
    servers = []

    def make(**options) -> FakeLLM:
        server = FakeLLM(**options).start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()
