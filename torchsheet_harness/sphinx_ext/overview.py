"""``{page-overview}``: every page in reading order, with its title and purpose sentence."""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx

from . import store
from .rendering import link, placeholder


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
