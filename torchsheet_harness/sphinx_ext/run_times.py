"""``{run-times}``: per page and environment, the blocks run, the time taken, the slowest blocks
(like MyST-NB's execution table), from the entries recorded on the pages as they are now."""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx

from .. import results
from ..results import PageEntry, Results
from . import store
from .rendering import cell, link, placeholder, table

SLOWEST = 3  # blocks listed per row
COLUMNS = ("Page", "Environment", "Blocks run", "Seconds", "Slowest blocks", "Recorded")


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
