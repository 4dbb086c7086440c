"""Wires the pages in docs/ into pytest; the harness itself lives in torchsheet_harness/."""

from pathlib import Path

from torchsheet_harness.run.collect import page_sybil

pytest_plugins = [
    "torchsheet_harness.pytest_plugin",
    "torchsheet_harness.pytest_plugin.recorder",
    "torchsheet_harness.pytest_plugin.reuse",
    "torchsheet_harness.pytest_plugin.schedule",
    "pytester",
]
pytest_collect_file = page_sybil(Path(__file__).parent / "docs").pytest()
