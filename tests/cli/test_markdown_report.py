"""The markdown report cannot be turned against its reader, and says everything (issue 9)."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from ragtui.cli import main
from ragtui.core.sanitize import md_code
from tests.core.messy_runs import record, write_gold, write_run

HOSTILE = "[click](https://evil.example) ![x](https://evil.example/i.png) @team <img src=x onerror=alert(1)> `tick` a|b **bold**"


@pytest.fixture
def hostile_markdown(tmp_path, capsys):
    gold = write_gold(tmp_path / "gold.yaml", [("q1", HOSTILE), ("q2", "factuelle_courte")])
    a = write_run(tmp_path / "a.jsonl", [record("q1"), record("q2")], name=HOSTILE)
    b = write_run(tmp_path / "b.jsonl", [record("q1", verdicts=[False]), record("q2")], name="@org/everyone")
    assert main(["report", str(a), str(b), "--gold", str(gold), "--format", "markdown"]) == 0
    return capsys.readouterr().out


def _rendered(markdown: str) -> str:
    return MarkdownIt("commonmark").enable("table").render(markdown)


def test_a_run_or_category_name_cannot_become_a_link_an_image_or_html(hostile_markdown):
    html = _rendered(hostile_markdown)
    assert "<a " not in html and "<img" not in html and "<strong>bold" not in html


def test_a_mention_from_a_file_only_ever_appears_inside_code(hostile_markdown):
    html = _rendered(hostile_markdown)
    outside_code = html
    while "<code>" in outside_code:
        start = outside_code.index("<code>")
        outside_code = outside_code[:start] + outside_code[outside_code.index("</code>", start) + 7:]
    assert "@team" not in outside_code and "@org" not in outside_code


def test_a_pipe_in_a_name_does_not_break_the_table(hostile_markdown):
    html = _rendered(hostile_markdown)
    # The categories table keeps its 6 columns on every row.
    category_table = html.split("<table>")[2].split("</table>")[0]
    for row in category_table.split("<tr>")[1:]:
        assert row.count("<td>") + row.count("<th>") == 6


def test_md_code_fences_longer_than_any_backtick_run():
    assert md_code("a ``b`` c") == "```a ``b`` c```"
    assert md_code("`x`") == "`` `x` ``"


def test_the_markdown_report_carries_legend_notes_failure_kinds_counts_and_lists(tmp_path, capsys):
    gold = write_gold(tmp_path / "gold.yaml", [(f"q{i}", "factuelle_courte") for i in range(40)])
    a = write_run(tmp_path / "a.jsonl", [record(f"q{i}") for i in range(40)])
    b = write_run(tmp_path / "b.jsonl", [record(f"q{i}", hit=i >= 2) for i in range(38)] + [record("q38", verdicts=None)])
    assert main(["report", str(a), str(b), "--gold", str(gold), "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "! a drop larger than max_drop" in out  # the legend
    assert "could be noise at n = " in out  # the notes
    assert "| failure kind | A | B |" in out and "| judge error | 0 | 1 |" in out and "| missing | 0 | 1 |" in out
    assert "1 missing · 0 not in gold · 1 judge errors" in out
    assert "(of which 1 missing from B, 1 judge errors)" in out
    assert "<summary>Fixed questions</summary>" not in out  # nothing was fixed
    assert "`Short factual`" in out and "factuelle_courte" not in out  # display names everywhere


def _hostile_tool_pair(tmp_path):
    """The DeepEval pair, its "Answer Relevancy" renamed HOSTILE and every reason and error made hostile."""
    import json

    from tests.importers.builders import FIXTURES

    paths = []
    for side in ("a", "b"):
        data = json.loads((FIXTURES / f"deepeval_pair_{side}.json").read_text(encoding="utf-8"))
        for case in data["testCases"]:
            for metric in case["metricsData"]:
                metric["name"] = HOSTILE if metric["name"] == "Answer Relevancy" else metric["name"]
                metric["reason"] = HOSTILE
                metric["error"] = HOSTILE if metric["error"] else None
        path = tmp_path / f"deepeval_{side}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        paths.append(str(path))
    return paths


def test_a_tool_metric_name_or_reason_cannot_inject_markdown_or_html_in_the_pr_comment(tmp_path, capsys):
    assert main(["report", *_hostile_tool_pair(tmp_path), "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out
    html = _rendered(markdown)
    assert "<a " not in html and "<img" not in html and "<strong>bold" not in html
    tool_table = html.split("DeepEval's own metrics")[1].split("<table>")[1].split("</table>")[0]
    rows = tool_table.split("<tr>")[1:]
    assert len(rows) == 3 and all(row.count("<td>") + row.count("<th>") == 7 for row in rows)  # the pipe split no cell
    assert f"| {md_code('deepeval:' + HOSTILE)} | ≥ 50% |" in markdown  # set in code by the one escaping, backtick kept
    outside_code = html
    while "<code>" in outside_code:
        start = outside_code.index("<code>")
        outside_code = outside_code[:start] + outside_code[outside_code.index("</code>", start) + 7 :]
    assert "@team" not in outside_code and "evil.example" not in outside_code
