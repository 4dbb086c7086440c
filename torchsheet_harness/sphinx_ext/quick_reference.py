"""The quick reference and the pitfalls index, built from marked blocks.

Markers on the pages (:mod:`.sheet_markers`) are collected when each page is read; a bad
marker, or a trap a page shows unmarked (:mod:`.pitfall_coverage`), is a build warning naming
page:line (``-W`` fails), and the page is read again by every later build until it is fixed
(an incremental build would skip it). ``{quick-reference}`` lists, under
each section named in its content (one per line, in order), the lines of every block marked for
it, each linking to the page section it comes from; ``{pitfalls}`` (:mod:`.pitfalls_index`)
lists every marked trap. Both are rendered at write time from what every page recorded, and a
line whose page is not verified in this build (per the results file) is marked as such.
"""

from __future__ import annotations

import html
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.application import Sphinx
from sphinx.util import logging

from . import pitfall_coverage, pitfalls_index
from .badges import warn_until_fixed
from .sheet_markers import Excerpt, collect, slug
from .sheet_store import (
    link,
    marks_in_order,
    merge,
    purge,
    rewrite_sheets,
    sheets,
    unverified_reason,
)

logger = logging.getLogger(__name__)


class quick_reference(nodes.General, nodes.Element):  # noqa: N801 (docutils node names)
    """Placeholder for the quick reference; ``sections`` in the order to show them."""


class QuickReference(Directive):
    """``{quick-reference}``: its content names the sections, one per line, in order."""

    has_content = True

    def run(self) -> list[nodes.Node]:
        sections = [line.strip() for line in self.content if line.strip()]
        env = self.state.document.settings.env
        sheets(env)["sections"][env.docname] = sections
        return [quick_reference(sections=sections)]


def read_markers(app: Sphinx, document: nodes.document) -> None:
    """doctree-read: the page's excerpts and pitfalls; a warning for each bad marker, and for
    each trap the page shows without a pitfall marker."""
    excerpts, pitfalls, errors = collect(document, app.env.docname)
    for error in errors + pitfall_coverage.unlisted_traps(document):
        warn_until_fixed(app, error, "marker")  # an incremental build reads the page again
    if excerpts or pitfalls:
        sheets(app.env)["marks"][app.env.docname] = (excerpts, pitfalls)


def check_sections(app: Sphinx, env: Any) -> None:
    """env-check-consistency: every quickref marker names a section the sheet shows."""
    known = {name for names in sheets(env)["sections"].values() for name in names}
    for excerpts, _ in sheets(env)["marks"].values():
        for excerpt in excerpts:
            if known and excerpt.section not in known:
                logger.warning(
                    f"{excerpt.where}: quickref section {excerpt.section!r} is not on the "
                    f"quick reference; known: {', '.join(sorted(known))}",
                    type="torchsheet",
                    subtype="marker",
                )


def visit_quick_reference_html(self: Any, node: quick_reference) -> None:
    app = self.builder.app
    by_section: dict[str, list[Excerpt]] = {name: [] for name in node["sections"]}
    for excerpts, _ in marks_in_order(app):
        for excerpt in excerpts:
            by_section.setdefault(excerpt.section, []).append(excerpt)
    parts, total, unverified = [], 0, 0
    for name in node["sections"]:
        items = []
        for excerpt in by_section[name]:
            reason = unverified_reason(app, excerpt.docname, excerpt.block_line)
            total += len(excerpt.lines)
            unverified += len(excerpt.lines) if reason else 0
            code = self.highlighter.highlight_block("\n".join(excerpt.lines), "python")
            title = app.env.titles[excerpt.docname].astext()
            state = f' ts-qr-unverified" title="{html.escape(reason)}' if reason else ""
            items.append(
                f'<div class="ts-qr-item{state}">{code}'
                f'<a class="ts-qr-link" href="{link(self, excerpt.docname, excerpt.anchor)}" '
                f'title="{html.escape(title)}">{html.escape(excerpt.heading)}</a></div>'
            )
        if items:
            anchor = f"qr-{slug(name)}"
            parts.append(
                f'<section class="ts-qr-section" id="{anchor}"><h2>{html.escape(name)}'
                f'<a class="headerlink" href="#{anchor}" title="Link to this section">#</a>'
                f"</h2>{''.join(items)}</section>"
            )
    summary = f"{total} lines, every one from a block the test suite executes"
    if unverified:
        summary += (
            f"; {unverified} of them not verified by the last test run (dashed on the left; "
            "hover for why)"
        )
    self.body.append(
        f'<p class="ts-qr-summary">{summary}.</p><div class="ts-quickref">{"".join(parts)}</div>'
    )
    raise nodes.SkipNode


def register(app: Sphinx, no_html: dict[str, Any]) -> None:
    """Add the sheets' nodes, directives and hooks (called by the extension's ``setup()``)."""
    app.add_node(quick_reference, html=(visit_quick_reference_html, None), **no_html)
    app.add_node(pitfalls_index.pitfalls_index, html=(pitfalls_index.visit_html, None), **no_html)
    app.add_directive("quick-reference", QuickReference)
    app.add_directive("pitfalls", pitfalls_index.Pitfalls)
    app.connect("doctree-read", read_markers)
    app.connect("env-purge-doc", purge)
    app.connect("env-merge-info", merge)
    app.connect("env-check-consistency", check_sections)
    app.connect("env-get-updated", rewrite_sheets)
