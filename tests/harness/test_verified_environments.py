"""docs/verification.md's table: the matrix, its newest version, and when each environment's run
verified the pages, built from the results files (a planted site)."""

from __future__ import annotations

import html
import re
from pathlib import Path

from sheet_site import CPU_213, CPU_214, PASSED, build, plant, record

from torchsheet_harness.matrix import torch_versions
from torchsheet_harness.results import Environment

CPU_215 = Environment(torch="2.15.0+cu132", cuda="13.2", device="CPU", gpus=0, python="3.11.7")
PAGE = "# Small\n\nA page.\n\n```python\n>>> 1 + 1\n2\n```\n\n```{verified-environments}\n```\n"


def cells(text: str) -> list[list[str]]:
    table = re.search(r'<table class="[^"]*ts-environments[^"]*">(.*?)</table>', text, re.S)
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table[1], re.S)
    return [
        [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td>(.*?)</td>", r, re.S)] for r in rows
    ]


def test_each_environment_with_its_run_date_newest_torch_first(tmp_path: Path) -> None:
    plant(tmp_path, {"index.md": PAGE}, "torchsheet_matrix = ('2.13.0', '2.14.1', '2.15.0')\n")
    for environment in (CPU_213, CPU_215):
        record(tmp_path, environment, {"5": PASSED})
    record(tmp_path, CPU_214, {"5": PASSED}, stale=True)  # a run of an older source: no pages
    text = build(tmp_path).html()
    assert [row for row in cells(text) if row] == [
        ["2.15.0+cu132", "CPU", "3.11.7", "2026-01-01 00:00 UTC", "1", "1"],
        ["2.14.1", "CPU", "3.11.7", "—", "0", "0"],
        ["2.13.0", "CPU", "3.11.7", "2026-01-01 00:00 UTC", "1", "1"],
    ]
    sentence = html.unescape(re.search(r'<p class="ts-matrix">(.*?)</p>', text)[1])
    assert sentence.startswith(
        "The test matrix (noxfile.py): torch 2.13.0, 2.14.1 and 2.15.0; the newest is 2.15.0. "
        "torch 2.15.0: verified on CPU, last run 2026-01-01 00:00 UTC (1 page, 1 block passed)."
    )
    assert "torch 2.14.1: no run of it in this build's results." in sentence


def test_the_matrix_is_the_noxfiles() -> None:
    import noxfile

    assert torch_versions() == noxfile.TORCH_VERSIONS
