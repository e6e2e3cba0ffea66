"""One JSONL reader for ragtui's runs and promptfoo's `-o out.jsonl`: same BOM, same messages."""

from __future__ import annotations

import pytest

from ragtui.core.errors import InputError
from ragtui.core.importers.promptfoo import _jsonl_results
from ragtui.core.loading.records import read_jsonl


def test_a_byte_order_mark_is_accepted_by_the_native_and_the_promptfoo_jsonl_reader(tmp_path):
    native = tmp_path / "run.jsonl"
    native.write_text('\ufeff{"run": {"name": "a"}}\n{"id": "q1"}\n', encoding="utf-8")
    raw = read_jsonl(native)
    assert (raw.meta, raw.records, raw.problems) == ({"name": "a"}, [{"id": "q1"}], [])
    promptfoo = tmp_path / "out.jsonl"
    text = '\ufeff{"success": true}\n{"success": false}\n'
    assert _jsonl_results(promptfoo, text) == [{"success": True}, {"success": False}]


def test_both_readers_report_every_malformed_line_with_the_same_message(tmp_path):
    text = '{"id": "q1"}\n{"id": \n{"id": "q3"}\n[1,\n'
    native = tmp_path / "run.jsonl"
    native.write_text(text, encoding="utf-8")
    native_messages = [(p.line, p.message) for p in read_jsonl(native).problems]
    with pytest.raises(InputError) as caught:
        _jsonl_results(tmp_path / "out.jsonl", text)
    promptfoo_messages = [(p.line, p.message) for p in caught.value.problems]
    assert [line for line, _ in native_messages] == [2, 4]
    assert native_messages == promptfoo_messages
