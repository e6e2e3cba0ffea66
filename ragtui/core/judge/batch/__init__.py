"""Judging through the providers' batch APIs: half the price, no rate limits, within 24 h.

`ragtui judge RUN -o OUT --batch` submits the judge calls as batch jobs instead of
making them one by one, and writes the same OUT as an interactive run: the prompts,
the strict parser, the repair and truncation steps and the cache are the interactive
ones (calls.py puts the batch behind the judge's client interface).

Modules, in the order a run uses them: api (requests, job states, results, retried
HTTP), openai and anthropic (the two wire formats), jobfile (`OUT.batch.json`: what was
submitted, so a rerun polls instead of paying twice), calls (the cache, else "wait for
the batch"), poller (status with backoff, progress), runner (the rounds, then the
interactive runner over the warm cache).
"""
