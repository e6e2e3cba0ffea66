"""Split an answer into sentences, deterministically, the same way on every machine.

The judge gives one verdict per sentence, so the sentences are ragtui's, not the
model's: the count the judge must return is known before the call, and two runs
judged with different models are compared sentence for sentence.

Rules, tuned for French answers (English works too):
- a block is a paragraph (lines joined by a space) or one list item; list items are
  lines starting with "- ", "* ", "• ", "1. ", "1) " or "a) ", and their marker is
  dropped; a blank line ends a paragraph;
- inside a block, a sentence ends at ".", "!", "?" or "…" (with any closing quote or
  bracket after it) followed by a space and a capital letter, a digit or an opening
  quote — so "3.5", "1 200,50 €" and "www.site.fr" never split;
- except after an abbreviation that cannot end a sentence: titles ("M.", "Mme.",
  "Dr."), references ("art.", "p.", "cf.", "ex.", "n."), initials ("J. Dupont") and
  dotted forms ("p. ex.", "c.-à-d.", "e.g."). "etc." is not one of them: it usually
  ends an enumeration, so "etc. Ensuite" splits and "etc. et" does not.
Runs of ordinary whitespace inside a sentence become one space; no-break spaces stay.
"""

from __future__ import annotations

import re

# Titles, compared case-sensitively: "Me Durand" is a lawyer, "give it to me." is not.
TITLES = frozenset("M MM Mme Mmes Mlle Mlles Me Dr Drs Pr St Ste Sts Mr Mrs Ms Prof".split())
# References, compared lower-cased ("Art. 3" opens a sentence as often as "art. 3" sits
# inside one). Words common at the end of a sentence ("min", "max", "par") are left out.
ABBREVIATIONS = frozenset(
    """
    art arts al cf ex pp chap sect fig vol éd n env approx av apr
    janv févr fév avr juil sept oct nov déc jan feb aug
    inc ltd corp vs viz resp tél
    """.split()
)

_LIST_ITEM = re.compile(r"^\s*(?:[-*•–]\s+|\d{1,3}[.)]\s+|[a-zA-Z][)]\s+)")
# A candidate end: terminal punctuation, closing quotes/brackets, then whitespace.
_END = re.compile(r"(?:\.{3}|[.!?…])+(?:\s?[\"'»”’)\]])*(?=\s)")
_OPENERS = "«\"“‘'([¿¡"


def split_sentences(text: str | None) -> list[str]:
    """The sentences of `text`, in order; [] for None or blank text."""
    if not text or not text.strip():
        return []
    sentences: list[str] = []
    for block in _blocks(text):
        sentences.extend(_split_block(block))
    return sentences


def _blocks(text: str) -> list[str]:
    """Paragraphs and list items, each as one line of text (marker removed)."""
    blocks: list[str] = []
    current: list[str] = []
    in_item = False

    def flush() -> None:
        joined = " ".join(current).strip()
        if joined:
            blocks.append(joined)
        current.clear()

    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if not line.strip():
            flush()
            in_item = False
            continue
        marker = _LIST_ITEM.match(line)
        if marker:
            flush()
            current.append(line[marker.end() :].strip())
            in_item = True
        elif in_item and line[:1].isspace():
            current.append(line.strip())  # an indented continuation of the item
        else:
            if in_item:
                flush()  # a plain line after a list starts a new paragraph
                in_item = False
            current.append(line.strip())
    flush()
    return blocks


def _split_block(block: str) -> list[str]:
    # Ordinary whitespace runs become one space; no-break spaces ("1 200,50 €") stay.
    block = re.sub(r"[ \t\n\r\f\v]+", " ", block).strip()
    pieces: list[str] = []
    start = 0
    for match in _END.finditer(block):
        end = match.end()
        following = block[end:].lstrip()
        if not following or not _starts_sentence(following):
            continue
        if match.group().startswith(".") and not match.group().startswith("...") and _is_abbreviation(block[:match.start()]):
            continue
        pieces.append(block[start:end].strip())
        start = end
    tail = block[start:].strip()
    if tail:
        pieces.append(tail)
    return [p for p in pieces if p]


def _starts_sentence(following: str) -> bool:
    first = following[0]
    if first in _OPENERS:
        rest = following[1:].lstrip()
        return not rest or rest[0].isupper() or rest[0].isdigit()
    return first.isupper() or first.isdigit()


def _is_abbreviation(before: str) -> bool:
    """Whether the word just before a period is an abbreviation that cannot end a sentence."""
    word = re.split(r"[\s(\[«\"“'’]", before)[-1]
    if not word:
        return False
    if word in TITLES or word.lower() in ABBREVIATIONS:
        return True
    if len(word) == 1 and word.isalpha():  # an initial: "J. Dupont", "p. 12"
        return True
    # A dotted form of short parts: "c.-à-d", "e.g", "J.-C" (but not "www.site.fr").
    parts = [part for part in re.split(r"[.-]", word) if part]
    return "." in word and all(len(part) <= 3 and part.isalpha() for part in parts)
