"""``{run-times}``: per page and environment, the blocks run, the time taken, the slowest blocks.

Like MyST-NB's execution table and sphinx-gallery's run-time list, built from the results files
this build read (:func:`.status.recorded_results`; per block ``seconds``, :mod:`..results`).
Only entries recorded on the page source as it is now are listed, as for the status lines
(:mod:`.verdicts`); per page and environment the latest entry wins. A page reused by a run
(``--torchsheet-reuse``) shows the times and date of the record it reused.
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx import addnodes

from .. import results
from ..results import PageEntry, Results

SLOWEST = 3  # blocks listed per row
COLUMNS = ("Page", "Environment", "Blocks run", "Seconds", "Slowest blocks", "Recorded")


def rows(found: list[Results], docs: Path) -> list[tuple[str, str, PageEntry]]:
    """(page, environment description, entry), by page then environment; fresh entries only."""
    latest: dict[tuple[str, str], tuple[str, PageEntry]] = {}
    for data in found:
        key = data["environment"]["key"]
        for page, entry in data["pages"].items():
            source = docs / page
            if not source.is_file() or entry.get("sha256") != results.page_digest(source):
                continue
            previous = latest.get((page, key))
            if previous is None or previous[1].get("finished", "") <= entry.get("finished", ""):
                latest[page, key] = (results.describe(data["environment"]), entry)
    return [(page, described, entry) for (page, _), (described, entry) in sorted(latest.items())]


def cells(entry: PageEntry) -> tuple[str, str, str, str]:
    """Blocks run, seconds (every block's), the slowest blocks that ran, the record's date."""
    blocks = entry.get("blocks", {})
    ran = [block for block in blocks.values() if block["outcome"] != "skipped"]
    timed = {line: block["seconds"] for line, block in blocks.items() if "seconds" in block}
    total = f"{sum(timed.values()):.1f}" if timed else "—"
    ran_timed = [
        (line, timed[line]) for line, block in blocks.items() if block in ran and line in timed
    ]
    slowest = sorted(ran_timed, key=lambda item: -item[1])[:SLOWEST]
    listed = ", ".join(f"line {line}: {seconds:.2f} s" for line, seconds in slowest) or "—"
    return str(len(ran)), total, listed, entry.get("finished", "")


def _row(texts: list[nodes.Node | str]) -> nodes.row:
    row = nodes.row()
    for text in texts:
        content = nodes.paragraph(
            "", "", text if isinstance(text, nodes.Node) else nodes.Text(text)
        )
        row += nodes.entry("", content)
    return row


def page_link(page: str) -> nodes.Node:
    target = "/" + page.removesuffix(".md")
    return addnodes.pending_xref(
        "", nodes.literal(text=page), refdomain="std", reftype="doc", reftarget=target,
        refexplicit=True, refwarn=True,
    )  # fmt: skip


class RunTimes(Directive):
    """``{run-times}``: the table; a sentence instead when no results were read."""

    def run(self) -> list[nodes.Node]:
        env = self.state.document.settings.env
        found = getattr(env.app, "torchsheet_results", None) or []
        listed = rows(found, Path(env.srcdir))
        if not listed:
            return [nodes.paragraph(text="No test run was recorded for this build.")]
        group = nodes.tgroup(cols=len(COLUMNS))
        group += [nodes.colspec(colwidth=1) for _ in COLUMNS]
        group += nodes.thead("", _row(list(COLUMNS)))
        body = nodes.tbody()
        for page, described, entry in listed:
            body += _row([page_link(page), described, *cells(entry)])
        group += body
        table = nodes.table("", group, classes=["ts-run-times"])
        return [table]
