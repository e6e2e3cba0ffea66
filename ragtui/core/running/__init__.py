"""Running the system under test on a gold set: the stage before judging and comparing.

`ragtui run` and `ragtui.evaluate` ask a team's own RAG system every gold question and
write a run file in the native JSONL format, appended question by question so an
interrupted run resumes without asking a recorded question again. Without a UI: the
command line draws the progress line and the summary.

Modules, in reading order: answers (what a system gives back, checked; system errors),
callables (Python functions, sync or async), endpoint (an HTTP service, with the judge's
retry policy), command (a program speaking JSON lines), metadata (the run's `run`
object, the system's git state), run_file (append, flush, resume), runner (workers over
the questions, one record each), start (gold set → run file, the path the CLI and the
Python API share).
"""
