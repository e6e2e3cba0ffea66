"""Fence untrusted text inside the judge's prompt so it cannot close its own block.

Answers and passages are written by parties nobody vetted (the system under test, the
corpus). Each prompt wraps them in tags whose names carry a nonce (`<passage-7f3a2c9d1e4b
id="…">`), and before any text is placed between those tags it is neutralised:
- invisible format characters (zero-width, bidi controls) and control characters are
  removed, so they cannot hide a tag from the rules below;
- every `<`, and every look-alike (`＜`, `﹤`, `〈`, `⟨`), becomes `‹`: the text can
  neither close its block nor open a fake one, whatever it puts after the bracket
  (`</x`, `< /x`, `<∕x` with a division slash…); "a < b" reads "a ‹ b" to the judge;
- every occurrence of the nonce becomes `[nonce]`.

The nonce is the first 48 bits of HMAC-SHA256(seed, content) where the content is
everything the prompt is rendered from. The seed is 32 random bytes: drawn per session
when nothing is cached, else kept in the cache folder (`nonce-seed`, mode 0600), so an
interrupted run renders byte-identical prompts when resumed and its cache still answers
(an exact-message cache key, nothing special to get wrong). Without the seed the nonce
of a prompt is unpredictable, and knowing one prompt's nonce tells nothing about another:
an answer that embeds a nonce it saw earlier changes the content, hence the nonce
(docs/decisions.md, issue 18).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import unicodedata
from pathlib import Path

NONCE_HEX = 12  # 48 bits: guessing one prompt's nonce is a 1 in 2.8e14 shot
SEED_FILE = "nonce-seed"
NONCE_STAND_IN = "[nonce]"
TAG_STAND_IN = "‹"

# `<` and its look-alikes: no bracket in a text can start a tag, whatever follows it.
_TAG_OPEN = re.compile(r"[<＜﹤〈⟨〈]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _invisible(ch: str) -> bool:
    return unicodedata.category(ch) == "Cf"


def neutralise(text: str, nonce: str) -> str:
    """`text` made inert for a block tagged with `nonce`: no tag, no nonce, no hidden character."""
    text = _CONTROL.sub("", text.replace("\r\n", "\n").replace("\t", " "))
    if any(_invisible(ch) for ch in text):
        text = "".join(ch for ch in text if not _invisible(ch))
    text = _TAG_OPEN.sub(TAG_STAND_IN, text)
    if nonce:
        text = re.sub(re.escape(nonce), NONCE_STAND_IN, text, flags=re.IGNORECASE)
    return text


def neutralise_attribute(value: str, nonce: str) -> str:
    """A passage id fit for `id="…"`: one line, no quote, no angle bracket."""
    flat = neutralise(value, nonce).replace("\n", " ")
    return flat.replace('"', "'").replace("<", "‹").replace(">", "›")


class NonceSource:
    """Derives each prompt's nonce from a secret seed and the prompt's content."""

    def __init__(self, seed: bytes | None = None):
        self._seed = seed if seed is not None else secrets.token_bytes(32)

    def nonce(self, *content: object) -> str:
        """The nonce of the prompt rendered from `content` (any JSON-serialisable values)."""
        message = json.dumps(content, ensure_ascii=False, sort_keys=True, default=str).encode("utf-8")
        return hmac.new(self._seed, message, hashlib.sha256).hexdigest()[:NONCE_HEX]

    @classmethod
    def for_cache(cls, cache_dir: str | os.PathLike[str] | None, *, create: bool = True) -> NonceSource:
        """The source kept with a call cache (a fresh one without a cache, or when absent and not `create`)."""
        if cache_dir is None:
            return cls()
        seed = read_seed(Path(cache_dir))
        if seed is None and create:
            seed = _create_seed(Path(cache_dir))
        return cls(seed)


def read_seed(cache_dir: Path) -> bytes | None:
    """The seed kept in `cache_dir`, or None when there is none (or it is damaged)."""
    try:
        seed = bytes.fromhex((cache_dir / SEED_FILE).read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return None
    return seed if len(seed) == 32 else None


def _create_seed(cache_dir: Path) -> bytes:
    """Write a new seed unless another process won the race, and return the one on disk.

    Written to a private temporary file, then hard-linked into place: `link` fails when
    the name exists, so two processes starting on one cache agree on a single seed.
    """
    cache_dir.mkdir(parents=True, exist_ok=True)
    seed = secrets.token_bytes(32)
    tmp = cache_dir / f"{SEED_FILE}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, seed.hex().encode("ascii") + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, cache_dir / SEED_FILE)
    except FileExistsError:
        pass
    except OSError:  # a file system without hard links: last writer wins, before any call
        os.replace(tmp, cache_dir / SEED_FILE)
    finally:
        tmp.unlink(missing_ok=True)
    return read_seed(cache_dir) or seed
