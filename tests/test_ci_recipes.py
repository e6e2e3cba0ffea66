"""docs/ci.md: every command of the GitHub Actions workflow and the GitLab CI job, run on the sample.

Each recipe runs in a fresh folder holding the bundled sample as `eval/`, its commands in
order through bash as the CI would, with the job's variables. `gh`, `curl` and `python -m
pip` are stand-ins that record what they were asked (and check the file they are given
exists); `ragtui` is this checkout's.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "sample_data"
ARTIFACTS = ("ragtui-comment.md", "ragtui-junit.xml", "ragtui-report.html")

STAND_IN = """#!/usr/bin/env bash
# Records its arguments; fails when a file it is told to send is missing.
printf '%s\\n' "$(basename "$0") $*" >> "$RECORD"
for arg in "$@"; do
  case "$arg" in
    body@*) [ -f "${arg#body@}" ] || { echo "no file ${arg#body@}" >&2; exit 1; } ;;
  esac
done
if [ "$(basename "$0")" = gh ]; then
  while [ $# -gt 0 ]; do [ "$1" = --body-file ] && { [ -f "$2" ] || exit 1; }; shift; done
fi
"""
PYTHON = """#!/usr/bin/env bash
# `python -m pip …` is recorded; anything else is the test's Python.
if [ "$1" = -m ] && [ "$2" = pip ]; then printf '%s\\n' "python $*" >> "$RECORD"; exit 0; fi
exec {python} "$@"
"""


def _recipes() -> tuple[dict, dict]:
    blocks = re.findall(r"```yaml\n(.*?)```", (REPO / "docs" / "ci.md").read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 2, "docs/ci.md holds the GitHub workflow, then the GitLab job"
    return yaml.safe_load(blocks[0]), yaml.safe_load(blocks[1])


@pytest.fixture
def workspace(tmp_path) -> tuple[Path, dict[str, str]]:
    """A checkout of a team's repository: the sample as eval/, stand-ins first on PATH."""
    (tmp_path / "eval").mkdir()
    for name in ("baseline.jsonl", "candidate.jsonl", "gold.yaml", "ragtui.yaml"):
        shutil.copy(SAMPLE / name, tmp_path / "eval" / name)
    stand_ins = tmp_path / "bin"
    stand_ins.mkdir()
    for name, text in (("gh", STAND_IN), ("curl", STAND_IN), ("python", PYTHON.format(python=sys.executable))):
        (stand_ins / name).write_text(text, encoding="utf-8")
        (stand_ins / name).chmod(0o755)
    ragtui = Path(sys.executable).parent
    env = {
        **os.environ, "PATH": f"{stand_ins}:{ragtui}:{os.environ['PATH']}", "RECORD": str(tmp_path / "record.txt"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    env.pop("GITHUB_STEP_SUMMARY", None)
    return tmp_path, env


def _run(script: str, folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-e", "-c", script], cwd=folder, env=env, capture_output=True, text=True, timeout=300)


def _expressions(value: str) -> str:
    """GitHub's `${{ … }}` as the runner would fill them for pull request 7."""
    known = {"github.token": "token-for-the-test", "github.event.pull_request.number": "7"}
    return re.sub(r"\$\{\{\s*([\w.]+)\s*\}\}", lambda m: known[m.group(1)], value)


@pytest.mark.slow
def test_every_command_of_the_github_workflow_runs_and_leaves_its_artifacts(workspace):
    folder, env = workspace
    workflow, _ = _recipes()
    job = workflow["jobs"]["ragtui"]
    env = {**env, **job["env"], "GITHUB_STEP_SUMMARY": str(folder / "summary.md")}
    last = None
    for step in job["steps"]:
        if "uses" in step:
            if step["uses"].startswith("actions/upload-artifact"):
                for path in step["with"]["path"].split():
                    assert (folder / path).is_file(), path
            continue
        step_env = {**env, **{key: _expressions(str(value)) for key, value in step.get("env", {}).items()}}
        last = _run(step["run"], folder, step_env)
        assert last.returncode == 0, (step["name"], last.stderr[-2000:])
    assert all((folder / name).is_file() for name in ARTIFACTS)
    record = (folder / "record.txt").read_text(encoding="utf-8").splitlines()
    assert record == ["python -m pip install ragtui", "gh pr comment 7 --body-file ragtui-comment.md"]
    # The last step: annotations on stdout, the markdown report in the job summary, one line per gate.
    assert last is not None and last.stdout.startswith("::notice title=ragtui baseline → candidate::")
    assert "### ragtui report: `baseline` → `candidate`" in (folder / "summary.md").read_text(encoding="utf-8")
    assert last.stderr.count("ragtui: gate --fail-") == 2


@pytest.mark.slow
def test_every_command_of_the_gitlab_job_runs_and_leaves_its_artifacts(workspace):
    folder, env = workspace
    _, gitlab = _recipes()
    job = gitlab["ragtui"]
    env = {
        **env, **job["variables"], "RAGTUI_NOTE_TOKEN": "token-for-the-test", "CI_API_V4_URL": "https://gitlab.invalid/api/v4",
        "CI_PROJECT_ID": "42", "CI_MERGE_REQUEST_IID": "7",
    }
    results = [_run(command, folder, env) for command in job["script"]]
    assert [result.returncode for result in results] == [0] * len(results), [r.stderr[-500:] for r in results]
    for path in [*job["artifacts"]["paths"], job["artifacts"]["reports"]["junit"]]:
        assert (folder / path).is_file(), path
    record = (folder / "record.txt").read_text(encoding="utf-8").splitlines()
    assert record[0] == "python -m pip install ragtui"
    assert record[1].startswith("curl --fail --silent --show-error --request POST --header PRIVATE-TOKEN: token-for-the-test")
    assert record[1].endswith("--data-urlencode body@ragtui-comment.md https://gitlab.invalid/api/v4/projects/42/merge_requests/7/notes")
    assert "ragtui report" in results[-1].stdout and results[-1].stderr.count("ragtui: gate --fail-") == 2
