"""The three wire formats a judge can speak, as request builders and response readers.

- `openai`: OpenAI-compatible chat completions (`{base}/chat/completions`): OpenAI, vLLM,
  llama.cpp's server, Ollama's `/v1`, most proxies.
- `anthropic`: Anthropic Messages (`{base}/v1/messages`).
- `ollama`: Ollama's native chat (`{base}/api/chat`).

No HTTP happens here (see client.py): a provider only shapes the request and reads the
reply, so the formats are testable on their own. Every request has temperature 0 and
an output-token bound, and asks for structured JSON the strongest way the server
accepts. Servers differ in what they accept, so each provider has a ladder of
structured-output modes and falls one rung down when a 400 names the feature:
- openai: `json_schema` (strict, sentence count fixed) → `json_object` → none;
- anthropic: prefill `{` → JSON instruction only (newer Claude models refuse prefill);
- ollama: `format` = the schema → `format: "json"` → none.
OpenAI's newer models also reject `max_tokens` (→ `max_completion_tokens`) and a
temperature of 0 (→ the model's default, with a warning): both are adapted the same way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ragtui.core.judge.parsing import VERDICT_SCHEMA_NAME
from ragtui.core.judge.settings import JudgeSettings
from ragtui.core.loading import bounded_json

ANTHROPIC_VERSION = "2023-06-01"


@dataclass(frozen=True)
class Completion:
    """A provider's reply, normalised: the text, whether it was cut off, token counts."""

    text: str
    finish_reason: str | None
    truncated: bool
    tokens_in: int
    tokens_out: int

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "finish_reason": self.finish_reason,
            "truncated": self.truncated,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Completion:
        return cls(
            str(data.get("text") or ""),
            data.get("finish_reason"),
            bool(data.get("truncated")),
            int(data.get("tokens_in") or 0),
            int(data.get("tokens_out") or 0),
        )


class ResponseShapeError(ValueError):
    """A 2xx reply that is not the provider's format (a proxy's HTML page, say)."""


def error_message(body: str) -> str:
    """The human part of an error body: `error.message`, `error` or the text itself."""
    try:
        data = bounded_json.loads(body)
    except (json.JSONDecodeError, ValueError):
        return body.strip()[:300]
    if isinstance(data, dict):
        err = data.get("error", data.get("message", data))
        if isinstance(err, dict):
            err = err.get("message") or err.get("type") or err
        return str(err)[:300]
    return str(data)[:300]


def _int(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


class Provider:
    """Shapes requests and reads replies for one wire format."""

    name = ""
    modes: tuple[str, ...] = ("none",)

    def __init__(self, settings: JudgeSettings):
        self.settings = settings
        self.mode = self.modes[0]
        self.warnings: list[str] = []

    @property
    def url(self) -> str:
        raise NotImplementedError

    def headers(self) -> dict[str, str]:
        key = self.settings.api_key
        return {"Authorization": f"Bearer {key}"} if key else {}

    def body(self, messages: list[dict[str, str]], max_tokens: int, schema: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def parse(self, payload: Any) -> Completion:
        raise NotImplementedError

    def adapt(self, status: int, body: str) -> str | None:
        """React to a 400 by changing how requests are built; returns what changed, or None."""
        return None

    def _next_mode(self, body: str, hints: tuple[str, ...]) -> str | None:
        lowered = body.lower()
        index = self.modes.index(self.mode)
        if index + 1 < len(self.modes) and any(hint in lowered for hint in hints):
            old, self.mode = self.mode, self.modes[index + 1]
            return f"the server refused structured output '{old}'; using '{self.mode}'"
        return None


class OpenAIProvider(Provider):
    name = "openai"
    modes = ("json_schema", "json_object", "none")

    def __init__(self, settings: JudgeSettings):
        super().__init__(settings)
        # OpenAI's own newer models only take max_completion_tokens; compatible servers
        # (vLLM, llama.cpp, Ollama) all take max_tokens.
        self.token_param = "max_completion_tokens" if settings.uses_official_endpoint else "max_tokens"
        self.send_temperature = True

    @property
    def url(self) -> str:
        return f"{self.settings.resolved_base_url}/chat/completions"

    def body(self, messages, max_tokens, schema):
        body: dict[str, Any] = {"model": self.settings.model, "messages": messages, self.token_param: max_tokens}
        if self.send_temperature:
            body["temperature"] = self.settings.temperature
        if self.mode == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": VERDICT_SCHEMA_NAME, "strict": True, "schema": schema},
            }
        elif self.mode == "json_object":
            body["response_format"] = {"type": "json_object"}
        return body

    def parse(self, payload):
        try:
            choice = payload["choices"][0]
            message = choice.get("message") or {}
        except (KeyError, IndexError, TypeError, AttributeError):
            raise ResponseShapeError("no choices[0].message in the reply") from None
        text = message.get("content")
        if text is None and message.get("refusal"):
            text = f"(refused: {message['refusal']})"
        finish = choice.get("finish_reason")
        usage = payload.get("usage") or {}
        return Completion(str(text or ""), finish, finish == "length", _int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens")))

    def adapt(self, status, body):
        lowered = body.lower()
        if status != 400:
            return None
        if self.token_param == "max_tokens" and "max_tokens" in lowered and "max_completion_tokens" in lowered:
            self.token_param = "max_completion_tokens"
            return "the server wants max_completion_tokens instead of max_tokens"
        if self.token_param == "max_completion_tokens" and "max_completion_tokens" in lowered and "unrecognized" in lowered:
            self.token_param = "max_tokens"
            return "the server does not know max_completion_tokens; using max_tokens"
        if self.send_temperature and "temperature" in lowered:
            self.send_temperature = False
            message = f"{self.settings.model} refuses temperature {self.settings.temperature}: using its default, verdicts may vary between runs"
            self.warnings.append(message)
            return message
        return self._next_mode(body, ("response_format", "json_schema", "json_object", "schema"))


class AnthropicProvider(Provider):
    name = "anthropic"
    modes = ("prefill", "instruct")

    @property
    def url(self) -> str:
        return f"{self.settings.resolved_base_url}/v1/messages"

    def headers(self):
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if self.settings.api_key:
            headers["x-api-key"] = self.settings.api_key
        return headers

    def body(self, messages, max_tokens, schema):
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        turns = [{"role": m["role"], "content": m["content"]} for m in messages if m["role"] != "system"]
        if self.mode == "prefill":
            # Claude continues from "{": no preamble, no fence — the reply is the object.
            turns.append({"role": "assistant", "content": "{"})
        body: dict[str, Any] = {
            "model": self.settings.model,
            "max_tokens": max_tokens,
            "temperature": self.settings.temperature,
            "messages": turns,
        }
        if system:
            body["system"] = system
        return body

    def parse(self, payload):
        try:
            blocks = payload["content"]
            text = "".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type", "text") == "text")
        except (KeyError, TypeError, AttributeError):
            raise ResponseShapeError("no content blocks in the reply") from None
        if self.mode == "prefill" and text.lstrip()[:1] in ('"', "}"):
            text = "{" + text  # the reply continues our "{"; prose or a fresh "{" is left as is
        stop = payload.get("stop_reason")
        usage = payload.get("usage") or {}
        tokens_in = _int(usage.get("input_tokens")) + _int(usage.get("cache_creation_input_tokens")) + _int(usage.get("cache_read_input_tokens"))
        return Completion(text, stop, stop == "max_tokens", tokens_in, _int(usage.get("output_tokens")))

    def adapt(self, status, body):
        if status != 400:
            return None
        return self._next_mode(body, ("prefill", "final assistant", "assistant message"))


class OllamaProvider(Provider):
    name = "ollama"
    modes = ("schema", "json", "none")

    @property
    def url(self) -> str:
        return f"{self.settings.resolved_base_url}/api/chat"

    def body(self, messages, max_tokens, schema):
        body: dict[str, Any] = {
            "model": self.settings.model,
            "messages": messages,
            "stream": False,
            "options": {"temperature": self.settings.temperature, "num_predict": max_tokens},
        }
        if self.mode == "schema":
            body["format"] = schema
        elif self.mode == "json":
            body["format"] = "json"
        return body

    def parse(self, payload):
        try:
            text = payload["message"]["content"]
        except (KeyError, TypeError):
            raise ResponseShapeError("no message.content in the reply") from None
        reason = payload.get("done_reason")
        return Completion(str(text or ""), reason, reason == "length", _int(payload.get("prompt_eval_count")), _int(payload.get("eval_count")))

    def adapt(self, status, body):
        if status != 400:
            return None
        return self._next_mode(body, ("format", "schema", "json"))


PROVIDER_CLASSES: dict[str, type[Provider]] = {"openai": OpenAIProvider, "anthropic": AnthropicProvider, "ollama": OllamaProvider}


def make_provider(settings: JudgeSettings) -> Provider:
    """The provider for `settings.provider` (not lexical: that one makes no request)."""
    return PROVIDER_CLASSES[settings.provider](settings)
