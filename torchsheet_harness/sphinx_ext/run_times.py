"""The verification page's two tables, from the entries recorded on the pages as they are now.
``{run-times}``: per page and environment, the blocks run, the time taken, the slowest blocks (like
MyST-NB's execution table); ``{verified-environments}``: the torch matrix and, per results file,
when a run verified it (whether the newest release is covered, and since when)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx

from .. import results
from ..matrix import release, version_key
from ..results import PageEntry, Results
from . import store
from .rendering import cell, link, placeholder, table
from .verdicts import join, plural

SLOWEST = 3  # blocks listed per row
COLUMNS = ("Page", "Environment", "Blocks run", "Seconds", "Slowest blocks", "Recorded")
ENVIRONMENT_COLUMNS = ("torch", "device", "Python", "last run", "pages", "blocks passed")


def rows(found: list[Results], docs: Path) -> list[tuple[str, str, PageEntry]]:
    """(page, environment description, entry), by page then environment; fresh entries only."""
    latest: dict[tuple[str, str], tuple[str, PageEntry]] = {}
    for data in found:
        key = data["environment"]["key"]
        for page, entry in results.current_pages(data, docs).items():
            previous = latest.get((page, key))
            if previous is None or previous[1].get("finished", "") <= entry.get("finished", ""):
                environment = data["environment"]  # 'torch 2.13.0 on CPU'
                described = f"torch {results.describe_torch(environment)} on "
                latest[page, key] = (described + results.describe_device(environment), entry)
    return [(page, described, entry) for (page, _), (described, entry) in sorted(latest.items())]


def cells(entry: PageEntry) -> tuple[str, str, str, str]:
    """Blocks run, seconds (every block's), the slowest blocks that ran, the record's date."""
    blocks = entry.get("blocks", {})
    ran = [block for block in blocks.values() if block.get("outcome") not in (None, "skipped")]
    timed = {line: block["seconds"] for line, block in blocks.items() if "seconds" in block}
    total = f"{sum(timed.values()):.1f}" if timed else "—"
    ran_timed = [
        (line, timed[line]) for line, block in blocks.items() if block in ran and line in timed
    ]
    slowest = sorted(ran_timed, key=lambda item: -item[1])[:SLOWEST]
    listed = ", ".join(f"line {line}: {seconds:.2f} s" for line, seconds in slowest) or "—"
    return str(len(ran)), total, listed, entry.get("finished", "")


class run_times(placeholder):  # noqa: N801 (docutils node names)
    """The table; a sentence instead when no results were read."""

    def render(self, app: Sphinx, docname: str) -> list[nodes.Node]:
        listed = rows(store.found_results(app), Path(app.srcdir))
        if not listed:
            return [nodes.paragraph("", "No test run was recorded for this build.")]
        lines = []
        for page, described, entry in listed:
            target = page.removesuffix(".md")
            name = nodes.literal(page, page)
            page_cell = (
                link(app, docname, target, "", [name]) if target in app.env.found_docs else name
            )
            lines.append(
                nodes.row(
                    "",
                    cell(page_cell),
                    *(cell(nodes.Text(text)) for text in (described, *cells(entry))),
                )
            )
        return [table(COLUMNS, lines, ["ts-run-times"])]


class verified_environments(placeholder):  # noqa: N801 (docutils node names)
    """The matrix sentence and the table, rendered from the results at write time."""

    def render(self, app: Sphinx, docname: str) -> list[nodes.Node]:
        found = environment_rows(store.found_results(app), Path(app.srcdir))
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
        return [*body, table(ENVIRONMENT_COLUMNS, lines, ["ts-environments"])]


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


def environment_rows(recorded: list[Results], docs: Path) -> list[Row]:
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
