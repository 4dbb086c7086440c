"""``{quick-reference}``: under each section its content names, the lines of every block marked
``% quickref: <section>`` (the block's own: nothing is retyped), each linked to its section; a
line whose block is not verified in this build is dashed, with why on its tooltip. And
``{pitfalls}``: every ``% pitfall:`` of the pages, one row each, linked to the block showing it."""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from ..locations import place
from ..pages.excerpts import ExcerptError, excerpt_lines
from ..pages.markers import pitfall_of, quickref_of
from . import store
from .rendering import cell, code_text, link, placeholder, slug, table
from .status_text import unverified_reason

logger = logging.getLogger(__name__)
PITFALLS_HEADER = ("The mistake", "What it does", "The fix", "Shown in")


class quick_reference(placeholder):  # noqa: N801 (docutils node names)
    """The quick reference; ``sections`` in the order to show them."""

    def render(self, app: Sphinx, docname: str) -> list[nodes.Node]:
        by_section: dict[str, list[nodes.Node]] = {name: [] for name in self["sections"]}
        total = unverified = 0
        for _, page in store.in_reading_order(app):
            for block in page.blocks:
                for section, lines in excerpts(block):
                    if section not in by_section:
                        continue
                    reason = unverified_reason(store.view(app, block.docname), block.line)
                    total += len(lines)
                    unverified += len(lines) if reason else 0
                    by_section[section].append(_item(app, docname, block, lines, reason))
        sheet = nodes.container(classes=["ts-quickref"])
        for name, items in by_section.items():
            if items:
                title = nodes.title(name, name)
                sheet += nodes.section("", title, *items, ids=[f"qr-{slug(name)}"],
                                       classes=["ts-qr-section"])  # fmt: skip
        summary = f"{total} lines, every one from a block the test suite executes"
        if unverified:
            summary += (
                f"; {unverified} of them not verified by the last test run (dashed on the left; "
                "hover for why)"
            )
        paragraph = nodes.paragraph("", f"{summary}.", classes=["ts-qr-summary"])
        return [nodes.container("", paragraph, sheet, classes=["no-search"])]


def excerpts(block: store.MarkedBlock) -> list[tuple[str, tuple[str, ...]]]:
    """(section, lines) for each quickref marker of ``block`` (a bad one: none)."""
    found = []
    for marker in block.markers:
        if marker.kind == "quickref" and (quickref := quickref_of(marker)) is not None:
            try:
                found.append((quickref.section, excerpt_lines(block.code, quickref.lines)))
            except ExcerptError:
                continue  # the page side fails the page for it
    return found


def _item(
    app: Sphinx, docname: str, block: store.MarkedBlock, lines: tuple[str, ...], reason: str | None
) -> nodes.container:
    code = "\n".join(lines)
    title = store.title(app, block.docname)
    heading = nodes.Text(block.heading)
    where = link(app, docname, block.docname, block.anchor, [heading], ["ts-qr-link"],
                 f"{title}: {reason}" if reason else title)  # fmt: skip
    item = nodes.container(classes=["ts-qr-item"] + (["ts-qr-unverified"] if reason else []))
    item += nodes.literal_block(code, code, language="python", classes=["ts-qr-code"])
    item += nodes.paragraph("", "", where, classes=["ts-qr-where"])
    return item


class QuickReference(SphinxDirective):
    """``{quick-reference}``: its content names the sections, one per line, in order."""

    has_content = True

    def run(self) -> list[nodes.Node]:
        sections = [line.strip() for line in self.content if line.strip()]
        page = store.record(self.env)
        page.quickref_sections, page.shows_others = sections, True
        return [quick_reference(sections=sections)]


def check_sections(app: Sphinx, env: Any) -> None:
    """env-check-consistency: every quickref marker names a section the sheet shows."""
    records = store.records(env)
    known = {name for page in records.values() for name in page.quickref_sections}
    for page in records.values():
        for block in page.blocks:
            for marker in block.markers:
                quickref = quickref_of(marker) if marker.kind == "quickref" else None
                if known and quickref is not None and quickref.section not in known:
                    where = place(env.doc2path(block.docname), marker.line)
                    logger.warning(
                        f"{where}: quickref section {quickref.section!r} is not on the quick "
                        f"reference; known: {', '.join(sorted(known))}",
                        type="torchsheet",
                        subtype="marker",
                    )


class pitfalls_index(placeholder):  # noqa: N801 (docutils node names)
    """The table of every marked trap."""

    def render(self, app: Sphinx, docname: str) -> list[nodes.Node]:
        rows = []
        for _, page in store.in_reading_order(app):
            for block in page.blocks:
                for marker in block.markers:
                    if marker.kind == "pitfall" and (pitfall := pitfall_of(marker)):
                        rows.append(_pitfall_row(app, docname, block, pitfall))
        summary = f"{len(rows)} traps, each shown running on its page."
        return [
            nodes.paragraph("", summary, classes=["ts-qr-summary"]),
            table(PITFALLS_HEADER, rows, ["ts-pitfalls", "no-search"]),
        ]


def _pitfall_row(app: Sphinx, docname: str, block: store.MarkedBlock, pitfall) -> nodes.row:
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
