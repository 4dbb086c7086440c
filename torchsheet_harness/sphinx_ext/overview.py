"""What each page is for: its purpose sentence, as the page overview and the meta description.

Every page starts with a title and one sentence on what it is for (a build warning otherwise).
``{page-overview}`` lists every page in navigation order with its title and that sentence; the
sentence is also the page's ``<meta name="description">``. Whether a page has code is kept here
too, for the status lines of section pages.
"""

from __future__ import annotations

import html
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.application import Sphinx
from sphinx.util import logging

from ..locations import place

logger = logging.getLogger(__name__)


class page_overview(nodes.General, nodes.Element):  # noqa: N801 (docutils node names)
    """Placeholder for the list of pages with their purpose sentences."""


class PageOverview(Directive):
    """``{page-overview}``: every page in navigation order, with its purpose sentence."""

    def run(self) -> list[nodes.Node]:
        return [page_overview()]


def purpose_of(document: nodes.document) -> str | None:
    """The page's one-line purpose: the first paragraph directly under its title."""
    section = next(iter(document.findall(nodes.section)), None)
    if section is None or len(section.children) < 2:
        return None
    first = section.children[1]
    return first.astext().replace("\n", " ") if isinstance(first, nodes.paragraph) else None


def record_page(app: Sphinx, document: nodes.document) -> None:
    """doctree-read: keep each page's purpose and whether it has code, for later pages."""
    purpose = purpose_of(document)
    if purpose is None:
        logger.warning(
            f"{place(document['source'], 1)}: no purpose sentence directly under the title; "
            "start the page with '# Title' and one sentence on what it is for",
            type="torchsheet",
            subtype="purpose",
        )
    has_code = any(document.findall(nodes.literal_block))
    recorded_pages(app.env)[app.env.docname] = {"purpose": purpose or "", "code": has_code}


def recorded_pages(env: Any) -> dict[str, dict[str, Any]]:
    """Per page, what the other pages' status lines and the overview need to know."""
    if not hasattr(env, "torchsheet_pages"):
        env.torchsheet_pages = {}
    return env.torchsheet_pages


def purge_page(app: Sphinx, env: Any, docname: str) -> None:
    recorded_pages(env).pop(docname, None)


def merge_pages(app: Sphinx, env: Any, docnames: set[str], other: Any) -> None:
    found = recorded_pages(other)
    recorded_pages(env).update({d: info for d, info in found.items() if d in docnames})


def _navigation_order(app: Sphinx) -> list[tuple[str, int]]:
    """(docname, depth) for every page reachable from the root's toctrees, in order."""
    order, seen = [], {app.config.root_doc}

    def walk(docname: str, depth: int) -> None:
        for child in app.env.toctree_includes.get(docname, []):
            if child not in seen:
                seen.add(child)
                order.append((child, depth))
                walk(child, depth + 1)

    walk(app.config.root_doc, 0)
    return order


def visit_overview_html(self: Any, node: page_overview) -> None:
    app = self.builder.app
    pages = recorded_pages(app.env)
    items = []
    for docname, depth in _navigation_order(app):
        title = app.env.titles[docname].astext() if docname in app.env.titles else docname
        link = self.builder.get_relative_uri(self.builder.current_docname, docname)
        purpose = pages.get(docname, {}).get("purpose", "")
        items.append(
            f'<li class="ts-overview-depth-{depth}"><a href="{html.escape(link)}">'
            f"{html.escape(title)}</a>"
            + (f' <span class="ts-purpose">— {html.escape(purpose)}</span>' if purpose else "")
            + "</li>"
        )
    self.body.append(f'<ul class="ts-overview">{"".join(items)}</ul>')
    raise nodes.SkipNode


def add_meta_description(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any
) -> None:
    """html-page-context: the purpose sentence as the page's meta description."""
    purpose = recorded_pages(app.env).get(pagename, {}).get("purpose")
    if purpose and doctree is not None:
        meta = f'<meta name="description" content="{html.escape(purpose)}" />\n'
        context["metatags"] = context.get("metatags", "") + meta
