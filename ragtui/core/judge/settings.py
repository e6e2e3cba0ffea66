"""What a judge run is configured with, from flags, ragtui.yaml and the environment.

Precedence, highest first: explicit arguments (the CLI flags), the `judge:` section of
ragtui.yaml (`--config`, else ./ragtui.yaml), the defaults below. The API key is only
ever read from the environment (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY` or the variable
named by `api_key_env`): a key in a config file would end up in a repository.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragtui.core.errors import InputError, problem
from ragtui.core.loading.config import DEFAULT_FALLBACK_PHRASES, DEFAULT_UNANSWERABLE_CATEGORIES, MAX_K

PROVIDERS = ("openai", "anthropic", "ollama", "lexical")
LANGS = ("fr", "en")

# The official endpoints; any other base URL (vLLM, llama.cpp, a proxy) may run keyless.
DEFAULT_BASE_URLS = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
    "ollama": "http://localhost:11434",
}
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}

# Keys of the `judge:` config section that map one-to-one onto settings fields.
_CONFIG_KEYS = {
    "provider": str,
    "model": str,
    "base_url": str,
    "api_key_env": str,
    "lang": str,
    "prompts": str,
    "max_tokens": int,
    "timeout": float,
    "concurrency": int,
    "max_retries": int,
    "cache": str,
    "lexical_threshold": float,
    "backoff_base": float,
    "backoff_max": float,
    "retry_after_max": float,
}


@dataclass(frozen=True)
class JudgeSettings:
    """Everything the judge needs besides the records. Build with from_env / from_config."""

    provider: str = "openai"
    model: str = ""
    base_url: str | None = None
    # Never printed, logged, cached or written: repr=False keeps it out of tracebacks too.
    api_key: str | None = field(default=None, repr=False, compare=False)
    api_key_env: str | None = None
    lang: str = "fr"
    prompts_dir: Path | None = None
    max_tokens: int = 2048
    temperature: float = 0.0
    timeout: float = 60.0
    concurrency: int = 8
    max_retries: int = 6
    # Backoff: base * 2**attempt, capped, times a random factor in [0.5, 1].
    backoff_base: float = 0.5
    backoff_max: float = 30.0
    # A server asking to wait longer than this (a daily quota) gets an error, not a wait.
    retry_after_max: float = 120.0
    cache_dir: Path | None = None
    k: int = 5
    fallback_phrases: tuple[str, ...] = DEFAULT_FALLBACK_PHRASES
    unanswerable_categories: tuple[str, ...] = DEFAULT_UNANSWERABLE_CATEGORIES
    prices: Mapping[str, Any] = field(default_factory=dict)
    lexical_threshold: float = 0.6

    @property
    def resolved_base_url(self) -> str:
        """The base URL in use: the given one, else the provider's official endpoint."""
        return (self.base_url or DEFAULT_BASE_URLS.get(self.provider, "")).rstrip("/")

    @property
    def uses_official_endpoint(self) -> bool:
        return self.base_url is None or self.resolved_base_url == DEFAULT_BASE_URLS.get(self.provider)

    def replace(self, **changes: Any) -> JudgeSettings:
        """A copy with some fields changed (the dataclass is frozen)."""
        return dataclasses.replace(self, **changes)

    def validated(self) -> JudgeSettings:
        """Check the settings; raise InputError naming the option at fault."""
        where = "judge settings"
        if self.provider not in PROVIDERS:
            raise InputError(problem(where, None, "provider", f"unknown provider '{self.provider}': expected one of {', '.join(PROVIDERS)}"))
        if self.provider != "lexical" and not self.model:
            example = {"openai": "gpt-4.1-mini", "anthropic": "claude-sonnet-4-5", "ollama": "qwen2.5:14b"}[self.provider]
            raise InputError(problem(where, None, "model", f"--model is required with --provider {self.provider} (e.g. {example})"))
        if self.lang not in LANGS:
            raise InputError(problem(where, None, "lang", f"unknown language '{self.lang}': expected fr or en"))
        for name in ("max_tokens", "concurrency", "k"):
            if getattr(self, name) < 1:
                raise InputError(problem(where, None, name, f"must be at least 1, got {getattr(self, name)}"))
        if self.k > MAX_K:
            raise InputError(problem(where, None, "k", f"expected a whole number from 1 to {MAX_K}, got {self.k}"))
        if self.max_retries < 0 or self.timeout <= 0:
            raise InputError(problem(where, None, "timeout", "timeout must be > 0 and max_retries >= 0"))
        if self.provider in DEFAULT_KEY_ENV and not self.api_key and self.uses_official_endpoint:
            env = self.api_key_env or DEFAULT_KEY_ENV[self.provider]
            raise InputError(problem(where, None, "api key", f"{env} is not set: export it, or name another variable with --api-key-env"))
        return self

    @classmethod
    def from_env(
        cls,
        provider: str = "openai",
        model: str = "",
        *,
        api_key_env: str | None = None,
        environ: Mapping[str, str] | None = None,
        **fields: Any,
    ) -> JudgeSettings:
        """Settings with the API key taken from the environment.

        Args:
            provider: openai, anthropic, ollama or lexical.
            model: the judge model's name as the provider knows it.
            api_key_env: the variable holding the key (default per provider).
            environ: the environment to read (default os.environ; tests pass a dict).
            **fields: any other JudgeSettings field (base_url, lang, cache_dir, …); an
                explicit `api_key` wins over the environment (an app's own secret store).
        """
        environ = os.environ if environ is None else environ
        env_name = api_key_env or DEFAULT_KEY_ENV.get(provider)
        api_key = fields.pop("api_key", None) or (environ.get(env_name) if env_name else None)
        return cls(provider=provider, model=model, api_key=api_key or None, api_key_env=api_key_env, **fields)

    @classmethod
    def from_config(
        cls,
        config: Mapping[str, Any] | str | os.PathLike[str] | None,
        *,
        environ: Mapping[str, str] | None = None,
        **overrides: Any,
    ) -> JudgeSettings:
        """Settings from a ragtui.yaml (path or parsed mapping), then `overrides` on top.

        The config's `judge:` section may hold provider, model, base_url, api_key_env,
        lang, prompts, max_tokens, timeout, concurrency, max_retries, cache and prices;
        the top-level `k` and `fallback_phrases` are used too. Overrides that are None
        are ignored, so CLI flags can be passed through as they are.
        """
        data, source = _load_config(config)
        section = data.get("judge") or {}
        if not isinstance(section, Mapping):
            raise InputError(problem(source, None, "judge", "expected a mapping of judge settings"))
        values: dict[str, Any] = {}
        for key, kind in _CONFIG_KEYS.items():
            if section.get(key) is not None:
                try:
                    values[key] = kind(section[key])
                except (TypeError, ValueError):
                    raise InputError(problem(source, None, f"judge.{key}", f"expected {kind.__name__}, found {section[key]!r}")) from None
        if "k" in data and data["k"] is not None:
            values["k"] = int(data["k"])
        if isinstance(data.get("fallback_phrases"), list):
            values["fallback_phrases"] = tuple(str(p) for p in data["fallback_phrases"])
        if isinstance(data.get("unanswerable_categories"), list):
            values["unanswerable_categories"] = tuple(str(c) for c in data["unanswerable_categories"])
        prices = section.get("prices")
        if prices is not None and not isinstance(prices, Mapping):
            raise InputError(problem(source, None, "judge.prices", "expected a mapping model -> {input, output}"))
        if prices:
            values["prices"] = dict(prices)
        values.update({key: value for key, value in overrides.items() if value is not None})
        if "prompts" in values:
            values["prompts_dir"] = Path(values.pop("prompts"))
        if "cache" in values:
            values["cache_dir"] = Path(values.pop("cache"))
        if isinstance(values.get("fallback_phrases"), list):
            values["fallback_phrases"] = tuple(values["fallback_phrases"])
        provider = values.pop("provider", "openai")
        model = values.pop("model", "")
        return cls.from_env(provider, model, environ=environ, **values)


def _load_config(config: Mapping[str, Any] | str | os.PathLike[str] | None) -> tuple[dict[str, Any], str]:
    """The parsed config and a name for messages; {} when there is none."""
    if config is None:
        default = Path("ragtui.yaml")
        if not default.exists():
            return {}, "ragtui.yaml"
        config = default
    if isinstance(config, Mapping):
        return dict(config), "config"
    from ragtui.core.loading.records import read_bytes_utf8
    from ragtui.core.loading.yaml_safe import load_yaml_file

    path = Path(config)
    _, data = load_yaml_file(path, read_bytes_utf8(path))
    if data is None:
        return {}, str(path)
    if not isinstance(data, dict):
        raise InputError(problem(path, None, None, f"expected a mapping of settings, found {type(data).__name__}"))
    return data, str(path)
