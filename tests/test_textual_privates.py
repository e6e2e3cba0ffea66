"""Tests read the screen and the toasts through one helper each, never Textual's privates.

`screen_strips` (tests/ui/triage_data.py) is the one reader of the compositor and the
`toasts` fixture (tests/ui/conftest.py) records notifications: a Textual upgrade that moves
either private attribute then breaks one function, not a dozen tests.
"""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).parent
PRIVATE = re.compile(r"\._(notifications|compositor)\b")
THE_ONE_READER = TESTS / "ui" / "triage_data.py"


def test_no_test_reads_textuals_private_notifications_or_compositor_outside_the_one_helper():
    readers = sorted(
        f"{path.relative_to(TESTS)}:{number}"
        for path in TESTS.rglob("*.py")
        if path not in (THE_ONE_READER, Path(__file__))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if PRIVATE.search(line)
    )
    assert readers == []


def test_the_one_helper_is_where_the_compositor_is_read():
    assert PRIVATE.search(THE_ONE_READER.read_text(encoding="utf-8"))
