"""The results files the docs build reads: one per environment, per block, by the controller."""

from __future__ import annotations

import json
import os
from collections import Counter
from functools import partial
from pathlib import Path

import pytest
from planted import PAGE, PLUGIN, RECORDER, REPO, write_project

from torchsheet_harness.environment import gpu_run_refusal
from torchsheet_harness.pages.requirements import cuda_device_count
from torchsheet_harness.results import (
    Environment,
    environment_key,
    input_paths,
    output_path,
    page_digest,
)


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
    assert a["blocks"]["7"] == {"end": 12, "outcome": "passed"}
    assert a["blocks"]["16"] == {  # one block of two >>> lines: one entry, its needs as data
        "end": 21, "requires": {"gpus": 1, "torchrun": 0, "slurm": False},
        "outcome": "skipped", "reason": "needs CUDA, found 0 CUDA GPUs",
    }  # fmt: skip
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
