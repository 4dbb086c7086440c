"""``{page-overview}``: every page in reading order, with its title and purpose sentence."""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from . import store
from .rendering import link, placeholder
from .status import purpose_of


class page_overview(placeholder):  # noqa: N801 (docutils node names)
    """Every page in reading order, with its purpose sentence."""

    def render(self, app: Sphinx, docname: str) -> list[nodes.Node]:
        records = store.records(app.env)
        items = nodes.bullet_list(classes=["ts-overview", "no-search"])
        for page, depth in store.reading_order(app):
            title = nodes.Text(store.title(app, page))
            line = nodes.paragraph("", "", link(app, docname, page, "", [title]))
            if purpose := records.get(page, store.PageRecord()).purpose:
                line += nodes.Text(" ")
                line += nodes.inline("", f"— {purpose}", classes=["ts-purpose"])
            items += nodes.list_item("", line, classes=[f"ts-overview-depth-{depth}"])
        return [items]


class PageOverview(SphinxDirective):
    """``{page-overview}``: every page in reading order, with its purpose sentence."""

    def run(self) -> list[nodes.Node]:
        store.record(self.env).shows_others = True
        return [page_overview()]


def add_description(app: Sphinx, document: nodes.document) -> None:
    """doctree-read: the purpose sentence as the page's meta description."""
    if purpose := purpose_of(document):
        document.insert(0, nodes.meta(name="description", content=purpose))
