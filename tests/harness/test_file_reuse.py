"""``--torchsheet-reuse`` on a sheet-side test file: reused while nothing it read has changed.

One planted project holds a test file under a sheet-side name
(``tests/sheet/test_rerun_same_dir.py``) that reads a file of the project, hands another to a
subprocess, and imports a test helper. A chain of pytest sub-runs records it, reuses it, then
plants a change in each part of its key (the file it read, the file its subprocess ran, the helper,
the harness's digest) and a failure, and checks that each one makes it run again, with why; a
narrowed run (``-k``) records nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from planted import PLUGIN, RECORDER, REPO, conftest

from torchsheet_harness import results

FILE_READS = "torchsheet_harness.pytest_plugin.file_reads"
REUSE = "torchsheet_harness.pytest_plugin.reuse"
NAME = "tests/sheet/test_rerun_same_dir.py"  # a sheet-side test file
TEST_FILE = """\
import subprocess, sys
from pathlib import Path

import helper

ROOT = Path(__file__).resolve().parents[2]


def test_reads_a_page():
    assert "Read" in (ROOT / "docs" / "read.md").read_text()
    assert helper.VALUE == 1


def test_runs_a_snippet():
    subprocess.run([sys.executable, str(ROOT / "snippets" / "run.py")], check=True)


def test_hands_a_relative_path_elsewhere(tmp_path):
    (tmp_path / "docs").mkdir()
    # "docs" is tmp_path's folder, relative to the subprocess's cwd: no read of the project.
    subprocess.run([sys.executable, "-c", "pass", "docs"], cwd=tmp_path, check=True)
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("file-reuse")
    (root / "conftest.py").write_text(conftest(PLUGIN, FILE_READS, RECORDER, REUSE))
    (root / "docs").mkdir()
    (root / "docs" / "read.md").write_text("# Read\n\nA page the test reads.\n")
    (root / "docs" / "unread.md").write_text("# Unread\n\nA page no test reads.\n")
    (root / "snippets").mkdir()
    (root / "snippets" / "run.py").write_text("assert 1 + 1 == 2\n")
    (root / "tests" / "sheet").mkdir(parents=True)
    (root / "tests" / "support").mkdir()
    (root / "tests" / "conftest.py").write_text(
        "import sys\nfrom pathlib import Path\n\n"
        "sys.path.insert(0, str(Path(__file__).parent / 'support'))\n"
    )
    (root / "tests" / "support" / "helper.py").write_text("VALUE = 1\n")
    (root / NAME).write_text(TEST_FILE)
    return root


def run(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "TORCHSHEET_RESULTS")}
    env |= {"PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", "tests", *args]
    return subprocess.run(
        [*command, "--torchsheet-reuse"], cwd=root, env=env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip


def record(root: Path) -> dict:
    (path,) = (root / "docs" / "_build" / "results").glob("*.json")
    return results.read_results(path)["test_files"][NAME]


def test_each_part_of_the_key_makes_the_file_run_again(project: Path) -> None:
    first = run(project)
    assert first.returncode == 0 and "3 passed" in first.stdout, first.stdout[-2000:]
    entry = record(project)
    assert entry["outcome"] == "passed"
    assert set(entry["reuse"]["reads"]) == {"docs/read.md", "snippets/run.py"}
    assert {"tests/support/helper.py", NAME} <= set(entry["reuse"]["sources"])

    again = run(project)
    assert again.returncode == 0, again.stdout[-2000:]
    assert f"torchsheet: reused {NAME}: its pass of" in again.stdout
    assert "passed" not in again.stdout.splitlines()[-1], again.stdout[-1000:]

    for path, text, why in (
        ("docs/read.md", "# Read\n\nEdited.\n", "a file it read changed (docs/read.md)"),
        ("snippets/run.py", "assert 2 == 2\n", "a file it read changed (snippets/run.py)"),
        (
            "tests/support/helper.py",
            "VALUE = 1  # edited\n",
            "test helper changed (tests/support/helper.py)",
        ),
    ):
        (project / path).write_text(text)
        rerun = run(project)
        assert f"not reused {NAME}: " in rerun.stdout and why in rerun.stdout, rerun.stdout[-2000:]
        assert "3 passed" in rerun.stdout

    path = next((project / "docs" / "_build" / "results").glob("*.json"))
    data = json.loads(path.read_text())
    data["test_files"][NAME]["reuse"]["harness"] = "an older harness"
    path.write_text(json.dumps(data))
    rerun = run(project)
    assert "the harness's code changed" in rerun.stdout and "3 passed" in rerun.stdout


def test_a_failed_record_runs_again_and_a_narrowed_run_records_nothing(project: Path) -> None:
    run(project)  # a passed record, whatever the other test left
    (project / "snippets" / "run.py").write_text("assert 1 == 2\n")
    failed = run(project)
    assert failed.returncode == 1 and "1 failed" in failed.stdout
    assert record(project)["outcome"] == "failed"
    (project / "snippets" / "run.py").write_text("assert 1 + 1 == 2\n")
    narrowed = run(project, "-k", "reads")
    assert "its record failed" in narrowed.stdout and "1 passed" in narrowed.stdout
    assert record(project)["outcome"] == "failed", "a -k run recorded the file as a whole pass"
    whole = run(project)
    assert "its record failed" in whole.stdout and "3 passed" in whole.stdout
    assert record(project)["outcome"] == "passed"
