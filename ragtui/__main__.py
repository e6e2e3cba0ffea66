"""`python -m ragtui` is the same as the `ragtui` console script."""

from ragtui.cli import main

raise SystemExit(main())
