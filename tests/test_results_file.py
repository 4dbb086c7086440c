"""The results file the docs build reads: per page, counted in blocks, written by the controller."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from planted import PLUGIN, RECORDER, conftest

from torchsheet_harness.results import page_digest

ROOT = Path(__file__).resolve().parent.parent

PAGE = """\
# A page

What the test page is for.

```python
>>> 1 + 1
2
>>> 2 * 3
6
```

```{code-block} python
:class: needs-cuda
>>> import torch
>>> torch.ones(1, device="cuda").device.type
'cuda'
```

% not-run: a shell command
```bash
pip install torch
```
"""


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.delenv("TORCHSHEET_RESULTS", raising=False)
    pytester.makeconftest(conftest(PLUGIN, RECORDER))
    docs = pytester.path / "docs" / "section"
    docs.mkdir(parents=True)
    (docs / "a.md").write_text(PAGE)
    (docs / "b.md").write_text(PAGE.replace("2 * 3\n6", "2 * 4\n9"))
    return pytester


def results(project: pytest.Pytester, path: str = "docs/_build/results.json") -> dict:
    return json.loads((project.path / path).read_text())


def test_written_by_the_xdist_controller_per_page_in_blocks(project: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    run = project.runpytest_subprocess(
        "-p", "xdist", "-n", "2", "docs", "--torchsheet-results=elsewhere/r.json"
    )  # fmt: skip
    run.assert_outcomes(passed=3, failed=1, skipped=6)
    pages = results(project, "elsewhere/r.json")["pages"]
    assert set(pages) == {"section/a.md", "section/b.md"}
    a, b = pages["section/a.md"], pages["section/b.md"]
    assert (a["passed"], a["failed"], a["skipped"]) == (1, 0, 2)  # two >>> lines, one block
    assert a["needs_hardware"] == {"CUDA": 1} and a["not_run"] == 1
    assert a["skip_reasons"]["not run: a shell command"] == 1
    assert a["sha256"] == page_digest(project.path / "docs" / "section" / "a.md")
    assert (b["passed"], b["failed"]) == (0, 1)
    assert "results of 2 pages recorded" in run.stdout.str()


def test_not_written_for_a_partial_selection(project: pytest.Pytester) -> None:
    run = project.runpytest_subprocess("docs", "-k", "line")
    assert "page results not recorded: -k selects part of the pages" in run.stdout.str()
    assert not (project.path / "docs" / "_build" / "results.json").exists()


def test_whole_pages_merge_into_earlier_results(project: pytest.Pytester) -> None:
    project.runpytest_subprocess("docs/section/a.md")
    project.runpytest_subprocess("docs/section/b.md")
    pages = results(project)["pages"]
    assert set(pages) == {"section/a.md", "section/b.md"}
    assert results(project)["last_run"]["args"][-1] == "docs/section/b.md"


def test_results_only_count_torchsheet_pages(tmp_path: Path) -> None:
    from torchsheet_harness.pytest_plugin.recorder import RunRecord

    record = RunRecord(tmp_path / "docs", tmp_path)
    assert record.page_of("docs/x/page.md::line:3,column:1") == "x/page.md"
    assert record.page_of("tests/test_x.py::test_y") is None
    assert record.page_of("elsewhere/page.md::line:3,column:1") is None
