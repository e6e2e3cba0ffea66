"""`report --format junit`: one test case per gold question, exactly the regressed ones failing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from junitparser import Failure, JUnitXml, Skipped

from ragtui.cli import main
from ragtui.cli.render_junit import xml_text
from tests.cli.ci_sample import MISSING_FROM_B, REGRESSED, report_file
from tests.cli.hostile_runs import COLONS_ID, IFRAME, IMAGE, NEWLINE_ID, QUESTION, SCRIPT, write_hostile


@pytest.fixture(scope="module")
def sample_junit(tmp_path_factory) -> Path:
    # --strict-targets: the sample's four targets are inconclusive for B, so that gate fails.
    code, path = report_file(tmp_path_factory.mktemp("junit"), "junit", "--fail-on-regression", "--fail-below-target", "--strict-targets")
    assert code == 1
    return path


def _cases(path: Path) -> list:
    xml = JUnitXml.fromfile(str(path))
    return [case for suite in xml for case in suite]


def test_the_sample_has_one_test_case_per_gold_question_and_one_per_gate(sample_junit):
    cases = _cases(sample_junit)
    questions = [case for case in cases if case.classname != "ragtui.gates"]
    gates = [case.name for case in cases if case.classname == "ragtui.gates"]
    assert len(questions) == 120
    assert len({case.name.split(":")[0] for case in questions}) == 120
    assert gates == ["gate --fail-on-regression", "gate --fail-below-target"]


def test_exactly_the_regressed_questions_fail_and_those_missing_from_b_are_skipped(sample_junit):
    cases = [case for case in _cases(sample_junit) if case.classname != "ragtui.gates"]
    failed = {case.name.split(":")[0] for case in cases if any(isinstance(r, Failure) for r in case.result)}
    skipped = {case.name.split(":")[0] for case in cases if any(isinstance(r, Skipped) for r in case.result)}
    assert failed == REGRESSED - MISSING_FROM_B
    assert skipped == MISSING_FROM_B
    suite = next(iter(JUnitXml.fromfile(str(sample_junit))))
    assert (suite.tests, suite.skipped) == (122, 4)


def test_a_failure_says_the_cause_and_the_metrics_that_fell(sample_junit):
    case = next(case for case in _cases(sample_junit) if case.name.startswith("q001:"))
    assert case.name == "q001: Quelle est la durée de la période d'essai pour un cadre ?"
    assert case.classname == "factuelle_courte"
    # B's answer to q001 has 3 judged sentences, 2 supported; A's 2 of 2.
    assert case.result[0].message == "generation (retrieval not worse); fell: faithfulness 100.0% → 66.7%"
    assert "changed: the answer changed (2 → 3 judged sentences)" in case.result[0].text


def test_a_gate_case_fails_with_the_gate_line_the_terminal_prints(sample_junit, capsys):
    gates = {case.name: case for case in _cases(sample_junit) if case.classname == "ragtui.gates"}
    assert gates["gate --fail-on-regression"].is_passed
    failure = gates["gate --fail-below-target"].result[0]
    assert isinstance(failure, Failure) and failure.text.startswith("gate --fail-below-target: FAILED: ")


def test_a_long_question_is_cut_in_the_test_name(sample_junit):
    case = next(case for case in _cases(sample_junit) if case.name.startswith("q003:"))
    assert case.name == "q003: Quelles sont les plages horaires où je dois obligatoirement…"


def _junit_schema(cache: Path) -> Path:
    """The JUnit schema CI servers read (Jenkins' xunit `junit-10.xsd`), from pytest's own source
    package on PyPI (its tests validate pytest's JUnit output against it); kept in the venv."""
    import pytest as installed

    target = Path(sys.prefix) / "ragtui-test-data" / "junit-10.xsd"
    if target.is_file():
        return target
    download = cache / "sdist"
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
               f"pytest=={installed.__version__}", "-d", str(download)]
    try:
        subprocess.run(command, check=True, capture_output=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"the JUnit schema ships in pytest's source package, which pip could not download here: {exc}")
    archive = next(download.glob("pytest-*.tar.gz"))
    with tarfile.open(archive) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("testing/example_scripts/junit-10.xsd"))
        source = tar.extractfile(member)
        assert source is not None
        target.parent.mkdir(exist_ok=True)
        partial = target.with_name(f"{target.name}.{os.getpid()}")  # another test process may be reading it
        partial.write_bytes(source.read())
        os.replace(partial, target)
    shutil.rmtree(download, ignore_errors=True)
    return target


def test_the_sample_and_a_hostile_run_are_valid_against_the_junit_schema(sample_junit, tmp_path):
    import xmlschema

    schema = xmlschema.XMLSchema(str(_junit_schema(tmp_path)))
    schema.validate(str(sample_junit))
    a, b, gold = write_hostile(tmp_path)
    code, path = report_file(tmp_path, "junit", "--fail-on-regression", runs=[str(a), str(b), "--gold", str(gold)])
    assert code == 1
    schema.validate(str(path))


def test_a_hostile_run_is_text_in_the_xml_and_its_ids_and_markup_survive(tmp_path):
    a, b, gold = write_hostile(tmp_path)
    assert main(["report", str(a), str(b), "--gold", str(gold), "--format", "junit", "-o", str(tmp_path / "r.xml")]) == 0
    root = ET.parse(tmp_path / "r.xml").getroot()
    assert {element.tag for element in root.iter()} <= {"testsuites", "testsuite", "properties", "property", "testcase", "failure", "system-err"}
    names = [case.get("name") for case in root.iter("testcase")]
    # A newline in an id becomes a space (a name is one line); the question is cut, never its markup undone.
    start = QUESTION[:20]
    assert sum(name.startswith(f"{NEWLINE_ID.replace(chr(10), ' ')}: {start}") for name in names) == 1
    assert sum(name.startswith(f"{COLONS_ID}: {start}") for name in names) == 1
    values = " ".join(value for element in root.iter() for value in element.attrib.values())
    assert all(attack in values for attack in (SCRIPT, IMAGE, IFRAME))  # run names, the category


def test_xml_text_replaces_what_xml_cannot_hold_and_shows_controls():
    # A lone surrogate is shown by `neutralize` itself, as every channel shows it.
    assert xml_text("a\ud800b\uffff\x00\x1b[31m") == "a<U+D800>b\ufffd␀␛[31m"


def test_several_candidates_give_one_test_suite_each(tmp_path):
    from tests.cli.ci_sample import SAMPLE, SAMPLE_ARGS

    runs = [*SAMPLE_ARGS[:2], str(SAMPLE / "candidate_k10.jsonl"), *SAMPLE_ARGS[2:]]
    code, path = report_file(tmp_path, "junit", "--fail-on-regression", runs=runs)
    assert code == 0
    suites = list(JUnitXml.fromfile(str(path)))
    assert [suite.name for suite in suites] == ["ragtui: baseline → candidate", "ragtui: baseline → candidate_k10"]
    assert [suite.tests for suite in suites] == [121, 121]


def test_the_html_page_refuses_several_candidates_before_loading_them(tmp_path, capsys):
    from tests.cli.ci_sample import SAMPLE

    runs = [str(SAMPLE / "baseline.jsonl"), str(SAMPLE / "candidate.jsonl"), str(tmp_path / "never-read.jsonl")]
    assert main(["report", *runs, "--format", "html"]) == 2
    assert "command line: --format: html shows one comparison: give one candidate run B" in capsys.readouterr().err


def test_one_run_fails_its_failing_questions_with_their_failure_kinds(tmp_path):
    from tests.cli.ci_sample import SAMPLE

    runs = [str(SAMPLE / "candidate.jsonl"), "--gold", str(SAMPLE / "gold.yaml"), "--no-cache"]
    code, path = report_file(tmp_path, "junit", runs=runs)
    assert code == 0
    cases = _cases(path)
    failures = {case.name.split(":")[0]: case.result[0].message for case in cases if case.result}
    assert len(cases) == 120 and len(failures) == 52  # the text report of the candidate alone: 52 failing
    assert failures["q001"] == "failing: unfaithful"
