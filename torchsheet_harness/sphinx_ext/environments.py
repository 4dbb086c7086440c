"""``{verified-environments}``: the torch matrix and, per results file, when a run verified it:
a reader sees whether the newest release is covered, and since when."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx

from .. import results
from ..matrix import release, version_key
from ..results import Results
from . import store
from .rendering import cell, placeholder, table
from .verdicts import join, plural

COLUMNS = ("torch", "device", "Python", "last run", "pages", "blocks passed")


class verified_environments(placeholder):  # noqa: N801 (docutils node names)
    """The matrix sentence and the table, rendered from the results at write time."""

    def render(self, app: Sphinx, docname: str) -> list[nodes.Node]:
        found = rows(store.found_results(app), Path(app.srcdir))
        sentence = matrix_sentence(tuple(app.config.torchsheet_matrix), found)
        body: list[nodes.Node] = []
        if sentence:
            body.append(nodes.paragraph("", sentence, classes=["ts-matrix"]))
        if not found:
            body.append(
                nodes.paragraph("", "No test results in this build: run the tests before the docs.")
            )
            return body
        lines = [
            nodes.row("", *(cell(nodes.Text(str(value))) for value in (
                row.torch, row.device, row.python, row.finished or "—", row.pages, row.passed
            )))
            for row in found
        ]  # fmt: skip
        return [*body, table(COLUMNS, lines, ["ts-environments"])]


@dataclass(frozen=True)
class Row:
    """What one environment's results file says about the pages as they are now."""

    torch: str
    release: str
    device: str
    python: str
    finished: str  # the latest page run's finish, 'YYYY-MM-DD HH:MM UTC'; '' for none
    pages: int  # pages recorded on their current source
    passed: int  # blocks that passed on those pages
    cpu: bool


def rows(recorded: list[Results], docs: Path) -> list[Row]:
    """One row per environment, newest torch first."""
    found = []
    for data in recorded:
        environment = data["environment"]
        fresh = results.current_pages(data, docs)
        blocks = [block for entry in fresh.values() for block in entry.get("blocks", {}).values()]
        found.append(
            Row(
                torch=results.describe_torch(environment),
                release=release(environment.get("torch", "")),
                device=results.describe_device(environment),
                python=environment.get("python", "?"),
                finished=max((entry.get("finished", "") for entry in fresh.values()), default=""),
                pages=len(fresh),
                passed=sum(block.get("outcome") == "passed" for block in blocks),
                cpu=not environment.get("gpus"),
            )
        )
    return sorted(found, key=lambda row: (version_key(row.release), row.finished), reverse=True)


def matrix_sentence(matrix: tuple[str, ...], found: list[Row]) -> str:
    """'The matrix: torch 2.13.0, 2.14.1 and 2.15.0 (the newest). Verified in this build: ...'"""
    if not matrix:
        return ""
    ordered = sorted(matrix, key=version_key)
    parts = [f"The test matrix (noxfile.py): torch {join(ordered)}; the newest is {ordered[-1]}."]
    for version in reversed(ordered):
        runs = [row for row in found if row.cpu and row.release == version and row.pages]
        if runs:
            latest = max(runs, key=lambda row: row.finished)
            parts.append(
                f"torch {version}: verified on CPU, last run {latest.finished} "
                f"({plural(latest.pages, 'page')}, {plural(latest.passed, 'block')} passed)."
            )
        else:
            parts.append(f"torch {version}: no run of it in this build's results.")
    return " ".join(parts)
