"""The status line under each page's purpose sentence (worded by :mod:`.status_text`), the
purpose sentence itself, and ``{page-overview}``: every page in reading order with its purpose.
A page without code (an index) sums its section."""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx

from . import store
from .rendering import link, placeholder
from .status_text import Status, section_status, status_of


class page_status(placeholder):  # noqa: N801 (docutils node names)
    """The page's status line, rendered from the results when the page is written."""

    def render(self, app: Sphinx, docname: str) -> list[nodes.Node]:
        status = status_for(app, docname)
        text: nodes.Node = nodes.Text(status.text)
        if status.detail:
            text = nodes.abbreviation(status.text, status.text, explanation=status.detail)
        classes = ["ts-status", f"ts-status-{status.state}", "no-search"]
        return [nodes.paragraph("", "", text, classes=classes)]


def purpose_of(document: nodes.document) -> str | None:
    """The page's one-line purpose: the first paragraph directly under its title."""
    section = next(iter(document.findall(nodes.section)), None)
    if section is None or len(section.children) < 2:
        return None
    first = section.children[1]
    return first.astext().replace("\n", " ") if isinstance(first, nodes.paragraph) else None


def place_status(document: nodes.document) -> None:
    """The status placeholder after the title and the purpose sentence."""
    section = next(iter(document.findall(nodes.section)), None)
    if section is None:
        return
    children = list(section.children)
    position = 2 if len(children) > 1 and isinstance(children[1], nodes.paragraph) else 1
    section.insert(position, page_status())


def status_for(app: Sphinx, docname: str) -> Status:
    """A page with code: its own result. A page without (an index): the sum over its section."""
    records = store.records(app.env)
    if records.get(docname, store.PageRecord()).has_code:
        return status_of([store.view(app, docname)])
    prefix = docname.rsplit("/", 1)[0] + "/" if "/" in docname else ""
    below = [d for d in sorted(app.env.found_docs) if d.startswith(prefix)]
    views = [store.view(app, d) for d in below if d in records and records[d].has_code]
    return section_status(views) or Status("none", "No code on this page.")


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
