"""``{pitfalls}``: every ``% pitfall:`` of the pages, one row each, linked to the block that shows
it (an unverified block's row dashed, with why on its tooltip)."""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx

from ..pages.markers import pitfall_of
from . import store
from .rendering import cell, code_text, link, placeholder, table
from .status_text import unverified_reason

HEADER = ("The mistake", "What it does", "The fix", "Shown in")


class pitfalls_index(placeholder):  # noqa: N801 (docutils node names)
    """The table of every marked trap."""

    def render(self, app: Sphinx, docname: str) -> list[nodes.Node]:
        rows = []
        for _, page in store.in_reading_order(app):
            for block in page.blocks:
                for marker in block.markers:
                    if marker.kind == "pitfall" and (pitfall := pitfall_of(marker)):
                        rows.append(_row(app, docname, block, pitfall))
        summary = f"{len(rows)} traps, each shown running on its page."
        return [
            nodes.paragraph("", summary, classes=["ts-qr-summary"]),
            table(HEADER, rows, ["ts-pitfalls", "no-search"]),
        ]


def _row(app: Sphinx, docname: str, block: store.MarkedBlock, pitfall) -> nodes.row:
    reason = unverified_reason(store.view(app, block.docname), block.line)
    shown = [nodes.Text(f"{store.title(app, block.docname)} › "), *code_text(block.heading)]
    where = link(app, docname, block.docname, block.target, shown, title=reason or "")
    classes = ["ts-pitfall"] + (["ts-qr-unverified"] if reason else [])
    return nodes.row(
        "",
        cell(*code_text(pitfall.mistake), classes=["ts-pitfall-mistake"]),
        cell(*code_text(pitfall.effect), classes=["ts-pitfall-effect"]),
        cell(*code_text(pitfall.fix), classes=["ts-pitfall-fix"]),
        cell(where, classes=["ts-pitfall-where"]),
        classes=classes,
    )
