"""Model families, from a model's name: the same-family judge warning rests on this.

A judge of the generator's own family can overrate its answers (by up to 8 points),
so ragtui warns when both come from one family. Unknown names stay unknown: no guess.
"""

from __future__ import annotations

import re

# (family display name, pattern on the lower-cased model name without any vendor prefix)
_FAMILIES: list[tuple[str, re.Pattern[str]]] = [
    ("OpenAI", re.compile(r"^(gpt|chatgpt|o[1-9]\b|o[1-9]-|text-davinci|davinci)")),
    ("Anthropic", re.compile(r"^claude")),
    ("Llama", re.compile(r"^(meta-)?(code)?llama")),
    ("Mistral", re.compile(r"^(mistral|mixtral|codestral|ministral|magistral|pixtral|devstral)")),
    ("Google", re.compile(r"^(gemini|gemma|palm|bison)")),
    ("Qwen", re.compile(r"^(qwen|qwq)")),
    ("DeepSeek", re.compile(r"^deepseek")),
    ("Phi", re.compile(r"^phi[-_.0-9]")),
    ("Cohere", re.compile(r"^(command|c4ai-command|cohere)")),
]


def model_family(model: str | None) -> str | None:
    """The family of a model name, or None when it is unknown.

    Vendor prefixes such as `meta-llama/`, `openai/`, `ollama:` and Bedrock-style
    `anthropic.` are ignored: `meta-llama/Llama-3.1-70B` is Llama, `o3-mini` is OpenAI.
    """
    if not model:
        return None
    name = model.strip().lower()
    name = name.rsplit("/", 1)[-1]
    name = name.split(":", 1)[-1] if re.match(r"^[a-z]+:", name) else name
    name = re.sub(r"^(anthropic|openai|meta|mistralai|google|cohere|amazon|us|eu)\.", "", name)
    name = re.sub(r"^(anthropic|openai|meta|mistralai|google|cohere|amazon)\.", "", name)
    for family, pattern in _FAMILIES:
        if pattern.search(name):
            return family
    return None


def same_family_warning(generator_model: str | None, judge_model: str | None) -> str | None:
    """The warning to show when generator and judge share a family, else None."""
    generator, judge = model_family(generator_model), model_family(judge_model)
    if generator is None or generator != judge:
        return None
    return (
        f"judge and generator are both from the {generator} family "
        f"({judge_model} judging {generator_model}): it may overrate the answers; "
        f"use a judge from another family"
    )
