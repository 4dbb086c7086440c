"""The one pattern for what the build shows from the results or from other pages: a
:class:`placeholder` put in the doctree when the page is read, replaced by its ``render`` when
the page is written (as ``sphinx.ext.todo`` does); and the node builders the renderers share."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from . import store


class placeholder(nodes.General, nodes.Element):  # noqa: N801 (docutils node names)
    """Stands where rendered content goes; replaced by :meth:`render` at write time."""

    def render(self, app: Sphinx, docname: str) -> list[nodes.Node]:
        raise NotImplementedError


class inline_placeholder(nodes.Inline, placeholder):  # noqa: N801
    """A placeholder inside a paragraph."""


def directive(node: type[placeholder]) -> type[SphinxDirective]:
    """A directive putting ``node`` on its page, which every build writes again."""

    class ShowsOthers(SphinxDirective):
        def run(self) -> list[nodes.Node]:
            store.record(self.env).shows_others = True
            return [node()]

    return ShowsOthers


def render_placeholders(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """doctree-resolved: every placeholder of the page written, replaced by its content."""
    for node in list(doctree.findall(placeholder)):
        node.replace_self(node.render(app, docname))


def code_text(text: str) -> list[nodes.Node]:
    """``text`` as nodes, its `backticked` spans as inline code."""
    parts = re.split(r"`([^`]+)`", text)
    return [
        nodes.literal(part, part) if i % 2 else nodes.Text(part)
        for i, part in enumerate(parts)
        if part
    ]


def link(
    app: Sphinx,
    docname: str,
    target: str,
    anchor: str,
    children: Sequence[nodes.Node],
    classes: Iterable[str] = (),
    title: str = "",
) -> nodes.reference:
    """A link from page ``docname`` to ``anchor`` on page ``target`` ('' for its top)."""
    uri = app.builder.get_relative_uri(docname, target) + (f"#{anchor}" if anchor else "")
    reference = nodes.reference("", "", *children, internal=True, refuri=uri, classes=[*classes])
    if title:
        reference["reftitle"] = title
    return reference


def cell(*children: nodes.Node, classes: Iterable[str] = ()) -> nodes.entry:
    return nodes.entry("", nodes.paragraph("", "", *children), classes=[*classes])


def table(header: Sequence[str], rows: Iterable[nodes.row], classes: Iterable[str]) -> nodes.table:
    """A table with a ``header`` row; its columns as wide as their content."""
    group = nodes.tgroup(cols=len(header))
    group += [nodes.colspec(colwidth=1) for _ in header]
    group += nodes.thead("", nodes.row("", *(cell(nodes.Text(name)) for name in header)))
    group += nodes.tbody("", *rows)
    return nodes.table("", group, classes=["colwidths-auto", *classes])


def slug(text: str) -> str:
    """An HTML id made of ``text``'s words."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "x"
