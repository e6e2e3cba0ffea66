"""`report --format junit`: the comparison as the JUnit XML that CI servers list natively.

One `<testsuite>` per comparison; in it one `<testcase>` per gold question (name: the id
and the start of the question; classname: the category), with a `<failure>` when the
question regressed (its message: the cause and the metrics that fell), `<skipped>` when
it is missing from B, and one test case per gate asked for. A single run's failing
questions fail the same way. The document follows the schema Jenkins' xunit plugin
publishes (`junit-10.xsd`), the one GitLab, Jenkins and GitHub's test reporters read.

ElementTree escapes `<`, `&` and quotes; before that every string from a file goes
through `neutralize` (no control character, no newline in a name) and loses the code
points XML 1.0 cannot hold at all (lone surrogates, U+FFFE, U+FFFF).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from ragtui.cli.ci_model import QUESTION_START, CiReport, QuestionLine
from ragtui.core.sanitize import neutralize

_NOT_XML = re.compile("[\ud800-\udfff\ufffe\uffff]")
GATES_CLASSNAME = "ragtui.gates"


def xml_text(text: object, *, one_line: bool = True) -> str:
    """Untrusted text that any XML 1.0 reader accepts, inert on a terminal too."""
    return _NOT_XML.sub("\ufffd", neutralize(text, keep_newlines=not one_line))


def case_name(question: QuestionLine) -> str:
    """`q017: Quelle est la durée de la période…`: the id and the start of the question."""
    text = " ".join(question.question.split())
    start = text if len(text) <= QUESTION_START else text[: QUESTION_START - 1].rstrip() + "…"
    return f"{question.id}: {start}" if start else question.id


def failure_message(question: QuestionLine) -> str:
    """The cause and the metrics that fell: `generation (retrieval not worse); fell: faithfulness 1.000 → 0.667`."""
    kinds = f": {', '.join(question.kinds_added)}" if question.kinds_added else ""
    parts = [question.cause_text or question.status_label + kinds]
    fell = question.falls_text()
    if fell:
        parts.append(f"fell: {fell}")
    return "; ".join(parts)


def _failure_body(question: QuestionLine) -> str:
    lines = [f"status: {question.status_label}"]
    if question.cause_text:
        lines.append(f"cause: {question.cause_text}")
    if question.kinds_added:
        lines.append(("new failure kinds: " if question.status == "regressed" else "failure kinds: ") + ", ".join(question.kinds_added))
    lines += [f"metric fell: {fall}" for fall in question.falls_text().split("; ") if fall]
    lines += [f"changed: {change}" for change in question.changes]
    return "\n".join(xml_text(line) for line in lines)


def _question_case(suite: ET.Element, question: QuestionLine) -> tuple[int, int]:
    """The question's test case; (failures, skipped) it adds."""
    case = ET.SubElement(suite, "testcase", name=xml_text(case_name(question)), classname=xml_text(question.category), time="0")
    if question.missing_from_latest:
        skipped = ET.SubElement(case, "skipped", message=xml_text(f"{question.cause_text}: not measured, counted as a regression by ragtui"))
        skipped.text = _failure_body(question)
        return 0, 1
    if question.failed:
        failure = ET.SubElement(case, "failure", message=xml_text(failure_message(question)), type=question.status)
        failure.text = _failure_body(question)
        return 1, 0
    return 0, 0


def _suite(root: ET.Element, report: CiReport) -> None:
    suite = ET.SubElement(root, "testsuite", name=xml_text(f"ragtui: {report.title}"))
    properties = ET.SubElement(suite, "properties")
    for run in report.runs:
        ET.SubElement(properties, "property", name=f"run {run.label}", value=xml_text(f"{run.name} ({run.path})"))
    ET.SubElement(properties, "property", name="k", value=str(report.k))
    ET.SubElement(properties, "property", name="questions", value=xml_text(report.summary))
    failures = skipped = 0
    for question in report.questions:
        failed, skip = _question_case(suite, question)
        failures, skipped = failures + failed, skipped + skip
    for gate in report.gates:
        case = ET.SubElement(suite, "testcase", name=f"gate {gate.flag}", classname=GATES_CLASSNAME, time="0")
        if not gate.passed:
            failures += 1
            ET.SubElement(case, "failure", message=xml_text(gate.reason), type="gate").text = xml_text(gate.line())
        else:
            ET.SubElement(case, "system-out").text = xml_text(gate.line())
    if report.warnings:
        ET.SubElement(suite, "system-err").text = "\n".join(xml_text(warning) for warning in report.warnings)
    tests = len(report.questions) + len(report.gates)
    suite.attrib.update(tests=str(tests), failures=str(failures), errors="0", skipped=str(skipped), time="0")


def render_junit(reports: list[CiReport]) -> str:
    """The JUnit XML document of one or more comparisons (one test suite each)."""
    root = ET.Element("testsuites", name="ragtui")
    for report in reports:
        _suite(root, report)
    totals = {key: sum(int(suite.get(key, "0")) for suite in root) for key in ("tests", "failures", "errors")}
    root.attrib.update({key: str(value) for key, value in totals.items()}, time="0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
