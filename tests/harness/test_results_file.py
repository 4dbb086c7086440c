"""The results files the docs build reads: one per environment, per block, by the controller;
and ``--torchsheet-reuse``: a page or sheet-side test file whose recorded pass still holds is not
run again (a chain of in-process runs plants a change in each part of the reuse key: exactly the
files it touches run again, with why)."""

import json
import os
import shutil
import sys
from collections import Counter
from functools import partial
from pathlib import Path

import pytest
from planted import PAGE, PLUGIN, RECORDER, REPO, conftest, write_project

from torchsheet_harness import environment, reuse_key
from torchsheet_harness.environment import gpu_run_refusal
from torchsheet_harness.pytest_plugin import reuse
from torchsheet_harness.results import (
    Environment,
    environment_key,
    input_paths,
    output_path,
    page_digest,
)
from torchsheet_harness.run.hardware import cuda_device_count


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    monkeypatch.delenv("TORCHSHEET_RESULTS", raising=False)
    pages = {"section/a.md": PAGE, "section/b.md": PAGE.replace("2 * 3\n6", "2 * 4\n9")}
    write_project(pytester.path, pages, PLUGIN, RECORDER)
    return pytester


def results(project: pytest.Pytester, path: str = "docs/_build/results") -> dict:
    """The one results file under ``path`` (a folder of per-environment files, or a file)."""
    found = project.path / path
    files = [found] if found.suffix == ".json" else sorted(found.glob("*.json"))
    assert len(files) == 1, files
    return json.loads(files[0].read_text())


def outcomes(data: dict, page: str) -> dict[int, str]:
    blocks = data["pages"][page]["blocks"].items()
    return {int(line): b["outcome"] for line, b in blocks if "outcome" in b}


def test_written_by_the_xdist_controller_per_page_in_blocks(project: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    run = project.runpytest_subprocess("-n", "2", "docs", "--torchsheet-results=elsewhere/r.json")
    run.assert_outcomes(passed=3, failed=1, skipped=6)
    data = results(project, "elsewhere/r.json")
    pages = data["pages"]
    assert set(pages) == {"section/a.md", "section/b.md"}
    a, b = pages["section/a.md"], pages["section/b.md"]
    assert outcomes(data, "section/a.md") == {7: "passed", 16: "skipped", 24: "skipped"}
    # Each block's seconds: its examples' setup, call and teardown; the rest is its result.
    seconds = {line: block.pop("seconds") for line, block in a["blocks"].items()}
    assert all(isinstance(value, float) and 0 <= value < 60 for value in seconds.values())
    # What each example printed, by its line: what the site compares between torch versions.
    assert a["blocks"]["7"] == {
        "end": 12,
        "outcome": "passed",
        "printed": {"8": "2\n", "10": "6\n"},
    }
    assert a["blocks"]["16"] == {  # one block of two >>> lines: one entry, its needs as data
        "end": 21, "requires": {"gpus": 1, "torchrun": 0, "slurm": False},
        "outcome": "skipped", "reason": "needs CUDA, found 0 CUDA GPUs",
        "uses": ["torch", "torch.ones"],  # the torch names its code uses, even skipped
    }  # fmt: skip
    # What this torch has for each name the recorded blocks use (read, not run).
    assert data["api"]["torch.ones"] == {} and data["api"]["torch"] == {}
    assert a["blocks"]["24"] == {
        "end": 26, "not_run": "a shell command", "outcome": "skipped",
        "reason": "not run: a shell command",
    }  # fmt: skip
    source = (project.path / "docs" / "section" / "a.md").read_text(encoding="utf-8")
    assert a["sha256"] == page_digest(source)
    assert outcomes(data, "section/b.md")[7] == "failed" and b["errors"] == 0
    assert len(a["reuse"]) == 64 and "reuse" not in b  # a whole-page pass only
    assert data["environment"]["device"] == "CPU" and data["environment"]["torch"]
    assert "results of 6 blocks on 2 pages recorded" in run.stdout.str()


def test_a_partial_selection_records_only_the_blocks_that_ran(project: pytest.Pytester) -> None:
    # -k selects the second >>> line of a.md's first block (line 10), not its first (line 8):
    # that block did not run whole, so nothing is recorded for it; the not-run block ran.
    run = project.runpytest_subprocess("docs/section/a.md", "-k", "10 or 24")
    run.assert_outcomes(passed=1, skipped=1, deselected=3)
    page = results(project)["pages"]["section/a.md"]
    assert outcomes(results(project), "section/a.md") == {24: "skipped"}
    assert page["blocks"]["7"] == {"end": 12} and "reuse" not in page  # known, not run whole
    assert "results of 1 blocks on 1 pages recorded" in run.stdout.str()
    # A stop on the first failure (-x) still records it, though its block was cut short.
    project.runpytest_subprocess("docs/section/b.md", "-x").assert_outcomes(passed=1, failed=1)
    assert outcomes(results(project), "section/b.md") == {7: "failed"}


def test_runs_merge_per_block_while_the_page_is_unchanged(project: pytest.Pytester) -> None:
    run = project.runpytest_subprocess("docs", "-m", "gpu")
    run.assert_outcomes(skipped=4, deselected=6)  # the GPU blocks only, none passed here
    project.runpytest_subprocess("docs/section/a.md", "-m", "not gpu")
    files = list((project.path / "docs" / "_build" / "results").glob("*.json"))
    assert len(files) == 1  # one environment, one file: the second run merged into it
    data = json.loads(files[0].read_text())
    assert files[0].stem == data["environment"]["key"] == environment_key(data["environment"])
    assert data["environment"]["key"].startswith("torch-") and "-cpu-py3." in files[0].stem
    assert outcomes(data, "section/a.md") == {7: "passed", 16: "skipped", 24: "skipped"}
    assert outcomes(data, "section/b.md") == {16: "skipped"}
    assert data["last_run"]["args"][-3:] == ["docs/section/a.md", "-m", "not gpu"]
    page = project.path / "docs" / "section" / "a.md"
    page.write_text(page.read_text() + "\nEdited.\n")
    project.runpytest_subprocess("docs/section/a.md", "-m", "gpu")
    # The earlier blocks ran an older source: dropped, not mixed with the new one.
    assert outcomes(results(project), "section/a.md") == {16: "skipped"}


def test_the_results_path_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TORCHSHEET_RESULTS", raising=False)
    environment = Environment(torch="2.14.1", device="CPU", gpus=0, python="3.11.7")
    key = environment_key(environment)
    assert key == "torch-2.14.1-cpu-py3.11"
    docs = tmp_path / "docs"
    out = partial(output_path, docs=docs, environment=environment, option_base=tmp_path)
    assert out(None) == docs / "_build" / "results" / f"{key}.json"
    assert out("r.json") == tmp_path / "r.json"
    assert out("out") == tmp_path / "out" / f"{key}.json"
    assert out("") is None
    assert input_paths(None, docs=docs) == [docs / "_build" / "results", docs / "_results"]
    monkeypatch.setenv("TORCHSHEET_RESULTS", f"{tmp_path / 'a'}{os.pathsep}{tmp_path / 'b.json'}")
    assert input_paths(None, docs=docs) == [tmp_path / "a", tmp_path / "b.json"]
    gpu = Environment(torch="2.11.0+cu130", device="NVIDIA H200", gpus=1, python="3.12.3")
    assert environment_key(gpu) == "torch-2.11.0+cu130-nvidia-h200-py3.12"


# A GPU run that tests nothing does not look green (what nox -s gpu passes: --torchsheet-expect-gpu)

CUDA = Environment(torch="2.11.0+cu130", cuda="13.0", device="NVIDIA H200", gpus=1)


@pytest.mark.parametrize(
    ("environment", "outcomes", "refusal"),
    [
        ({**CUDA, "torch": "2.13.0+cpu", "cuda": None, "gpus": 0}, None, "is a CPU build"),
        ({**CUDA, "gpus": 0, "device": "CPU"}, None, "no CUDA device visible"),
        (CUDA, Counter(skipped=45), "every selected block was skipped (45 skipped, none ran)"),
        (CUDA, Counter(), "every selected block was skipped (0 skipped, none ran)"),
        (CUDA, Counter(skipped=3, passed=1), None),
        (CUDA, Counter(failed=1), None),  # it ran: the failure fails the run by itself
        (CUDA, None, None),
    ],
)
def test_the_gpu_run_refusal(environment, outcomes, refusal) -> None:
    why = gpu_run_refusal(environment, outcomes)
    assert why is None if refusal is None else refusal in why


def test_expect_gpu_refuses_a_machine_without_cuda(project: pytest.Pytester) -> None:
    if cuda_device_count():
        pytest.skip("checks a machine without CUDA")
    run = project.runpytest_subprocess("docs", "-m", "gpu", "--torchsheet-expect-gpu")
    assert run.ret != 0
    assert "torchsheet GPU run refused: " in run.stderr.str()
    assert not (project.path / "docs" / "_build" / "results").exists()


def test_results_only_count_torchsheet_pages(tmp_path: Path) -> None:
    from torchsheet_harness.pytest_plugin.recorder import RunRecord

    record = RunRecord(tmp_path)
    assert record.page_of("docs/x/page.md::line:3,column:1") == "x/page.md"
    assert record.page_of("tests/test_x.py::test_y") is None
    assert record.page_of("elsewhere/page.md::line:3,column:1") is None


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
def reuse_project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("TORCHSHEET_RESULTS", raising=False)
    pytester.makeconftest(conftest(PLUGIN, RECORDER, REUSE))
    for name, text in FILES.items():
        (pytester.path / name).parent.mkdir(parents=True, exist_ok=True)
        (pytester.path / name).write_text(text)
    return pytester


def reuse_run(project: pytest.Pytester, capsys: pytest.CaptureFixture) -> tuple[set[str], str]:
    """(the files whose tests ran, what the run printed) of one run with --torchsheet-reuse."""
    recorder = project.inline_run("docs", "tests", reuse.OPTION, "-p", "no:cacheprovider")
    calls = [report for report in recorder.getreports() if report.when == "call"]
    ran = {report.nodeid.split("::")[0] for report in calls}
    return ran, capsys.readouterr().out


def test_each_part_of_the_key_reruns_the_files_it_touches(
    reuse_project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    project = reuse_project
    everything = {name for name in FILES if name.startswith(("docs/", "tests/"))}
    first, printed = reuse_run(project, capsys)
    assert first == everything
    assert "torchsheet: slow block docs/slow.md:5 took" in printed and "budget 10 s in" in printed
    (project.path / "docs" / "slow.md").unlink()
    everything.discard("docs/slow.md")
    (results,) = (project.path / "docs" / "_build" / "results").glob("*.json")
    recorded = json.loads(results.read_text())
    assert "reuse" in recorded["pages"]["plain.md"]
    assert "reuse" in recorded["test_files"]["tests/sheet/test_reads.py"]

    # Nothing changed: everything passing is reused; the failed page runs again.
    again, printed = reuse_run(project, capsys)
    assert again == {"docs/failing.md"}
    assert "not reused docs/failing.md: its record is not a whole pass" in printed

    # The page, the snippet another page includes, and the file the test file reads.
    (project.path / "docs" / "edited.md").write_text(FILES["docs/edited.md"].replace("A", "One"))
    (project.path / "snippets" / "check.py").write_text(FILES["snippets/check.py"] + "pass\n")
    (project.path / "data" / "read.txt").write_text("two\n")
    edits, printed = reuse_run(project, capsys)
    expected = {"docs/failing.md", "docs/edited.md", "docs/snippet.md", "tests/sheet/test_reads.py"}
    assert edits == expected
    assert "not reused docs/edited.md: the page changed" in printed
    assert "not reused docs/snippet.md: an included file" in printed

    # The harness: the project's conftest.py (the package's own files: the digest test below).
    project.makeconftest(conftest(PLUGIN, RECORDER, REUSE) + "# edited\n")
    assert reuse_run(project, capsys)[0] == everything

    # The environment: one more installed distribution on the path.
    site = project.path / "site" / "planted_dist-1.0.dist-info"
    site.mkdir(parents=True)
    (site / "METADATA").write_text("Metadata-Version: 2.1\nName: planted-dist\nVersion: 1.0\n")
    monkeypatch.setattr(sys, "path", [*sys.path, str(site.parent)])
    # (the fingerprint reads the path as it was when the harness was imported: a process start)
    monkeypatch.setattr(environment, "_IMPORT_PATH", list(sys.path))
    assert reuse_run(project, capsys)[0] == everything


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
