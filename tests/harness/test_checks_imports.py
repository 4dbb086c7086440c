"""The sides import nothing across, directly or through another module (``modulefinder`` reads
the imports, nothing is imported): no module of torchsheet_harness/checks imports the site
(``sphinx_ext``), and the site imports no Sybil and no page reader (it reads the doctree)."""

from __future__ import annotations

from modulefinder import ModuleFinder
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "torchsheet_harness"
SITE = "torchsheet_harness.sphinx_ext"
READERS = ("sybil", *(f"torchsheet_harness.pages.{m}" for m in ("page", "parser", "coverage")))
CHECKS = [f"torchsheet_harness.checks.{p.stem}" for p in sorted((PACKAGE / "checks").glob("*.py"))]


@pytest.mark.parametrize(
    ("side", "forbidden"), [*((name, (SITE,)) for name in CHECKS), (SITE, READERS)]
)
def test_a_side_imports_nothing_from_across(side: str, forbidden: tuple[str, ...]) -> None:
    finder = ModuleFinder(path=[str(PACKAGE.parent)])  # the harness's modules; others: not found
    finder.import_hook(side)
    imported = {*finder.modules, *finder.badmodules}
    assert sorted(name for name in imported if name.startswith(forbidden)) == []
