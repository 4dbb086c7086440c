"""docs/verification.md's table: the matrix, its newest version, and when each environment's run
verified the pages, built from the results files (a small project, built by Sphinx)."""

from __future__ import annotations

import re
from pathlib import Path

from test_html import CPU_213, CPU_214, PAGE, PASSED, built, record, small_project

from torchsheet_harness.matrix import torch_versions
from torchsheet_harness.results import Environment

CPU_215 = Environment(torch="2.15.0+cu132", cuda="13.2", device="CPU", gpus=0, python="3.11.7")
MATRIX = "torchsheet_matrix = ('2.13.0', '2.14.1', '2.15.0')\n"


def project(tmp_path: Path) -> Path:
    source = small_project(tmp_path, PAGE.replace("CLASSES", "needs-cuda"))
    page = source / "index.md"
    page.write_text(page.read_text() + "\n```{verified-environments}\n```\n")
    (source / "conf.py").write_text((source / "conf.py").read_text() + MATRIX)
    return source


def cells(html: str) -> list[list[str]]:
    table = re.search(r'<table class="[^"]*ts-environments">(.*?)</table>', html, re.S)
    assert table is not None
    return [re.findall(r"<td>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", table[1])]


def test_each_environment_with_its_run_date_newest_torch_first(tmp_path: Path) -> None:
    source = project(tmp_path)
    for environment in (CPU_213, CPU_215):
        record(source / "results", source, environment, {"5": PASSED})
    html = built(source)
    assert [row for row in cells(html) if row] == [
        ["2.15.0+cu132", "CPU", "3.11.7", "2026-01-01 00:00 UTC", "1", "1"],
        ["2.13.0", "CPU", "3.11.7", "2026-01-01 00:00 UTC", "1", "1"],
    ]
    sentence = re.search(r'<p class="ts-matrix">(.*?)</p>', html)[1]
    assert sentence.startswith(
        "The test matrix (noxfile.py): torch 2.13.0, 2.14.1 and 2.15.0; the newest is 2.15.0. "
        "torch 2.15.0: verified on CPU, last run 2026-01-01 00:00 UTC (1 page, 1 block passed)."
    )
    assert "torch 2.14.1: no run of it in this build&#x27;s results." in sentence


def test_a_run_of_an_older_page_source_does_not_count(tmp_path: Path) -> None:
    source = project(tmp_path)
    record(source / "results", source, CPU_214, {"5": PASSED}, stale=True)
    assert cells(built(source))[1] == ["2.14.1", "CPU", "3.11.7", "—", "0", "0"]


def test_the_matrix_is_the_noxfiles() -> None:
    import noxfile

    assert torch_versions() == noxfile.TORCH_VERSIONS
