"""Triage: what a person does with a comparison once the numbers are read.

Word and rank diffs of one question (`diffs`), marks and notes kept in a sidecar
(`notes`), search over every text of a comparison (`search`), and the export of marked
questions for a pull request (`export`). No Textual here.
"""
