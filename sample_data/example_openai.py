"""The example system with its answers written by an LLM: any OpenAI-compatible chat endpoint.

Retrieval is `example_system.chercher` (BM25 over the bundled corpus); generation asks
the chat model to answer from the passages only, or to say the fallback phrase:

    export OPENAI_API_KEY=…                            # or nothing, for a local server
    export OPENAI_BASE_URL=http://localhost:8000/v1    # default https://api.openai.com/v1
    export OPENAI_MODEL=gpt-4.1-mini                   # the default
    ragtui run sample_data/gold.yaml --retriever sample_data/example_openai.py:chercher \\
        --generator sample_data/example_openai.py:repondre -o llm.jsonl

Tokens come from the reply's `usage`; the cost too when `OPENAI_PRICE_IN` and
`OPENAI_PRICE_OUT` give the model's prices in dollars per million tokens (else it is
left out: unknown, not zero). A failed call raises, and `ragtui run` records it as that
question's system error.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from example_system import FALLBACK, chercher  # noqa: E402  (the same retrieval)

__all__ = ["chercher", "repondre"]

SYSTEM_PROMPT = (
    "Tu réponds aux questions des salariés à partir des seuls passages fournis. "
    f"Si les passages ne contiennent pas la réponse, réponds exactement : « {FALLBACK} » "
    "Réponds en une ou deux phrases, sans rien inventer."
)


@functools.cache
def _client() -> httpx.Client:
    """One connection pool for every question (httpx.Client is thread-safe: ragtui calls from -j threads)."""
    key = os.environ.get("OPENAI_API_KEY")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.Client(base_url=os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1"), headers=headers, timeout=60.0)


def _cost(tokens_in: int, tokens_out: int) -> float | None:
    price_in, price_out = os.environ.get("OPENAI_PRICE_IN"), os.environ.get("OPENAI_PRICE_OUT")
    if price_in is None or price_out is None:
        return None
    return (tokens_in * float(price_in) + tokens_out * float(price_out)) / 1_000_000


def repondre(question: str, passages: list[dict[str, Any]]) -> dict[str, Any]:
    """The model's answer from the passages, with its tokens (and cost when priced)."""
    context = "\n\n".join(f"[{p['id']}] {p.get('text', '')}" for p in passages)
    body = {
        "model": os.environ.get("OPENAI_MODEL", "gpt-4.1-mini"),
        "temperature": 0,
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": f"Passages :\n{context}\n\nQuestion : {question}"},
        ],
    }
    response = _client().post("/chat/completions", json=body)
    response.raise_for_status()
    reply = response.json()
    usage = reply.get("usage") or {}
    tokens_in, tokens_out = int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))
    return {
        "answer": reply["choices"][0]["message"]["content"].strip(),
        "tokens_in": tokens_in,
        "tokens_out": tokens_out,
        "cost_usd": _cost(tokens_in, tokens_out),
    }
