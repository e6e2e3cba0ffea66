"""What a judge call costs: a per-model price table, shipped and overridable.

The table (`prices.yaml` next to this module) is in US dollars per million tokens;
`judge: prices:` in ragtui.yaml adds or replaces entries. An unknown model has an
unknown cost — None, reported as such — rather than a reassuring 0. Calls answered
through a provider's batch API (`ragtui judge --batch`) are priced at the entry's
`batch_input`/`batch_output`; an entry without them has an unknown batch cost.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from ragtui.core.errors import InputError, problem
from ragtui.core.loading.yaml_safe import safe_load

# Providers that run on the user's own machine: no per-token bill unless told otherwise.
LOCAL_PROVIDERS = frozenset({"ollama", "lexical"})


@dataclass(frozen=True)
class Price:
    """USD per million input and output tokens; the batch APIs' prices when known."""

    input: float
    output: float
    batch_input: float | None = None
    batch_output: float | None = None

    def cost(self, tokens_in: int, tokens_out: int) -> float:
        return (tokens_in * self.input + tokens_out * self.output) / 1_000_000

    def batch(self) -> Price | None:
        """The price of the same tokens through the provider's batch API, or None if unknown."""
        if self.batch_input is None or self.batch_output is None:
            return None
        return Price(self.batch_input, self.batch_output)


@functools.lru_cache(maxsize=1)
def shipped_prices() -> dict[str, Price]:
    """The table shipped with ragtui."""
    text = resources.files("ragtui.core.judge").joinpath("prices.yaml").read_text(encoding="utf-8")
    return _parse_table(safe_load(text) or {}, "prices.yaml")


def _parse_table(data: Mapping[str, Any], source: str) -> dict[str, Price]:
    table: dict[str, Price] = {}
    for model, entry in data.items():
        if not isinstance(entry, Mapping):
            raise InputError(problem(source, None, f"prices.{model}", "expected {input: USD per 1M tokens, output: USD per 1M tokens}"))
        try:
            batch = [None if entry.get(name) is None else float(entry[name]) for name in ("batch_input", "batch_output")]
            table[str(model).lower()] = Price(float(entry.get("input", 0)), float(entry.get("output", 0)), *batch)
        except (TypeError, ValueError):
            raise InputError(problem(source, None, f"prices.{model}", "input, output, batch_input and batch_output must be numbers (USD per 1M tokens)")) from None
    return table


def _is_variant(suffix: str) -> bool:
    """Whether a name's remainder after a table key is a dated or tagged variant of it.

    "-2024-07-18", "-latest", ":14b" or "-v1:0" are; "-pro" or "-mini" are other models.
    """
    return suffix == "" or suffix[0] in ":@" or re.match(r"-(\d|latest|preview|v\d)", suffix) is not None


class PriceTable:
    """Prices by model name: exact match, else the longest known prefix."""

    def __init__(self, overrides: Mapping[str, Any] | None = None):
        self._table = dict(shipped_prices())
        if overrides:
            self._table.update(_parse_table(overrides, "ragtui.yaml judge.prices"))

    def price(self, model: str, provider: str | None = None, *, batch: bool = False) -> Price | None:
        """The price of `model`, or None when unknown (local providers default to 0).

        With `batch`, the price through the provider's batch API (None when the entry has none).
        """
        price = self._price(model, provider)
        return price.batch() if batch and price is not None else price

    def _price(self, model: str, provider: str | None) -> Price | None:
        name = model.strip().lower()
        bare = re.sub(r"^((us|eu|apac)\.)?(anthropic|openai|mistralai|meta)\.", "", name.rsplit("/", 1)[-1])
        for candidate in (name, bare):
            if candidate in self._table:
                return self._table[candidate]
            matches = [key for key in self._table if candidate.startswith(key) and _is_variant(candidate[len(key) :])]
            if matches:
                return self._table[max(matches, key=len)]
        if provider in LOCAL_PROVIDERS:
            return Price(0.0, 0.0, 0.0, 0.0)
        return None

    def cost(self, model: str, tokens_in: int, tokens_out: int, provider: str | None = None, *, batch: bool = False) -> float | None:
        """The cost in USD of one call (through the batch API with `batch`), or None when unknown."""
        price = self.price(model, provider, batch=batch)
        return None if price is None else price.cost(tokens_in, tokens_out)
