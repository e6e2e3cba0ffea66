"""`python -m ragtui` is the same as the `ragtui` console script."""

from ragtui.cli import run_and_exit

run_and_exit()
