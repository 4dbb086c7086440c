"""``--torchsheet-reuse``: a page or sheet-side test file whose recorded pass still holds is not
run again. A chain of in-process runs (``pytester.inline_run``) plants a change in each part of
the reuse key and checks that exactly the files it touches run again, with why."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from planted import PLUGIN, RECORDER, REPO, conftest

from torchsheet_harness import environment, reuse_key
from torchsheet_harness.pytest_plugin import reuse

REUSE = "torchsheet_harness.pytest_plugin.reuse"
FILES = {
    "docs/plain.md": "# Plain\n\nA page.\n\n```python\n>>> 2 + 2\n4\n```\n",
    "docs/edited.md": "# Edited\n\nA page.\n\n```python\n>>> 3 + 3\n6\n```\n",
    "docs/failing.md": "# Failing\n\nA page.\n\n```python\n>>> 1 + 1\n3\n```\n",
    "docs/snippet.md": "# Snippet\n\nA page.\n\n```{literalinclude} ../snippets/check.py\n```\n",
    "docs/slow.md": "# Slow\n\nA page.\n\n```python\n>>> import time\n>>> time.sleep(10.5)\n```\n",
    "snippets/check.py": "total = sum(range(4))\nassert total == 6\n",
    "data/read.txt": "one\n",
    "tests/sheet/test_reads.py": (
        "from pathlib import Path\n\nimport pytest\n\n"
        'pytestmark = pytest.mark.torchsheet_inputs("data/read.txt")\n\n\n'
        "def test_reads():\n"
        '    assert Path(__file__).parents[2].joinpath("data/read.txt").read_text()\n'
    ),
}


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("TORCHSHEET_RESULTS", raising=False)
    pytester.makeconftest(conftest(PLUGIN, RECORDER, REUSE))
    for name, text in FILES.items():
        (pytester.path / name).parent.mkdir(parents=True, exist_ok=True)
        (pytester.path / name).write_text(text)
    return pytester


def run(project: pytest.Pytester, capsys: pytest.CaptureFixture) -> tuple[set[str], str]:
    """(the files whose tests ran, what the run printed) of one run with --torchsheet-reuse."""
    recorder = project.inline_run("docs", "tests", reuse.OPTION, "-p", "no:cacheprovider")
    calls = [report for report in recorder.getreports() if report.when == "call"]
    ran = {report.nodeid.split("::")[0] for report in calls}
    return ran, capsys.readouterr().out


def test_each_part_of_the_key_reruns_the_files_it_touches(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    everything = {name for name in FILES if name.startswith(("docs/", "tests/"))}
    first, printed = run(project, capsys)
    assert first == everything
    assert "torchsheet: slow block docs/slow.md:5 took" in printed and "budget 10 s in" in printed
    (project.path / "docs" / "slow.md").unlink()
    everything.discard("docs/slow.md")
    (results,) = (project.path / "docs" / "_build" / "results").glob("*.json")
    recorded = json.loads(results.read_text())
    assert "reuse" in recorded["pages"]["plain.md"]
    assert "reuse" in recorded["test_files"]["tests/sheet/test_reads.py"]

    # Nothing changed: everything passing is reused; the failed page runs again.
    again, printed = run(project, capsys)
    assert again == {"docs/failing.md"}
    assert "not reused docs/failing.md: its record is not a whole pass" in printed

    # The page, the snippet another page includes, and the file the test file reads.
    (project.path / "docs" / "edited.md").write_text(FILES["docs/edited.md"].replace("A", "One"))
    (project.path / "snippets" / "check.py").write_text(FILES["snippets/check.py"] + "pass\n")
    (project.path / "data" / "read.txt").write_text("two\n")
    edits, printed = run(project, capsys)
    expected = {"docs/failing.md", "docs/edited.md", "docs/snippet.md", "tests/sheet/test_reads.py"}
    assert edits == expected
    assert "not reused docs/edited.md: the page changed" in printed
    assert "not reused docs/snippet.md: an included file" in printed

    # The harness: the project's conftest.py (the package's own files: the digest test below).
    project.makeconftest(conftest(PLUGIN, RECORDER, REUSE) + "# edited\n")
    assert run(project, capsys)[0] == everything

    # The environment: one more installed distribution on the path.
    site = project.path / "site" / "planted_dist-1.0.dist-info"
    site.mkdir(parents=True)
    (site / "METADATA").write_text("Metadata-Version: 2.1\nName: planted-dist\nVersion: 1.0\n")
    monkeypatch.setattr(sys, "path", [*sys.path, str(site.parent)])
    # (the fingerprint reads the path as it was when the harness was imported: a process start)
    monkeypatch.setattr(environment, "_IMPORT_PATH", list(sys.path))
    assert run(project, capsys)[0] == everything


def test_the_harness_digest_covers_every_module(tmp_path: Path) -> None:
    harness = tmp_path / "torchsheet_harness"
    shutil.copytree(REPO / "torchsheet_harness", harness)
    before = reuse_key.harness_digest(tmp_path, harness)
    assert before == reuse_key.harness_digest(tmp_path, harness)
    (harness / "run" / "outputs.py").write_text("# planted\n", encoding="utf-8")
    assert reuse_key.harness_digest(tmp_path, harness) != before


def test_ci_refuses_the_option(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    config = type("Config", (), {"getoption": lambda self, name, default=None: True})()
    with pytest.raises(pytest.UsageError, match="refused on CI"):
        reuse.pytest_configure(config)
