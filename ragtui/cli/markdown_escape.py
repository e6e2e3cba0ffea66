"""The one markdown escaping of ragtui's reports: untrusted text as an inline code span.

A PR comment renders markdown and HTML: a run name, an id or a metric name written as
`[x](https://…)`, `<img src=…>` or `@team` would become a link, an image or a ping. Inside
a code span none of that happens, so every string from a file goes through `md_code`
(the two-run report, the several-runs summary, the peer tools' tables alike).
"""

from __future__ import annotations

import re
from typing import Any

from ragtui.core.sanitize import neutralize

_BACKTICKS = re.compile(r"`+")


def md_code(text: Any) -> str:
    """`text` as an inline code span that nothing inside can end early.

    The fence is one backtick longer than the longest run inside; a space pads a text that
    starts or ends with a backtick (CommonMark strips one such space). `|` is escaped, as
    GFM tables require even inside code.
    """
    value = neutralize(text, keep_newlines=False).replace("|", "\\|")
    if not value.strip():
        return "–"
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(value)), default=0) + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}"
