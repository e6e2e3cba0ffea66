"""httpcore without its slow `sniffio` probe: imported by every ragtui HTTP client.

httpcore 1.0 tries `import sniffio` several times per request to tell trio from
asyncio. Recent anyio no longer installs sniffio, and a failed import rescans sys.path
every time: about 1 ms of CPU per request, a tenth of the judge's throughput at
concurrency 16. A None entry makes the import fail at once; httpcore then assumes
asyncio, exactly as it does on the slow path.
"""

from __future__ import annotations

import importlib.util
import sys

if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
    sys.modules["sniffio"] = None  # type: ignore[assignment]
