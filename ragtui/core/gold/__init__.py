"""The gold set's own stage: checking it against its corpus and runs, and editing it from triage."""
