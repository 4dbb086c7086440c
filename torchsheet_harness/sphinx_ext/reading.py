"""Reading a page (``doctree-read``): the page model (:func:`..pages.page.read_page`, the same
reading the test run takes) gives each code block's markers, requirement and output; this pass
places the page's purpose, its badges and status line, and records its marked blocks. A page
with problems is a build warning naming each, until it is fixed."""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx

from ..locations import place
from ..pages.markers import SHOWING, Marker, messages_of, pitfall_of
from ..pages.model import Block
from ..pages.page import read_page
from . import downloads, status, store
from .rendering import slug


def block_of(node: nodes.literal_block) -> nodes.Element:
    """The node that stands for ``node`` among its siblings (a captioned include's wrapper)."""
    parent = node.parent
    return parent if "literal-block-wrapper" in parent.get("classes", []) else node


def section_of(node: nodes.Node) -> tuple[str, str]:
    """(id, title) of the innermost section holding ``node``; ('', '') outside any."""
    while node is not None and not isinstance(node, nodes.section):
        node = node.parent
    if node is None:
        return "", ""
    return (node["ids"][0] if node["ids"] else ""), node[0].astext()


def read_page_doctree(app: Sphinx, document: nodes.document) -> None:
    """doctree-read: record the page, badge its blocks, place its status line."""
    record = store.record(app.env)
    page = read_page(document["source"])
    for problem in page.problems:
        store.warn_until_fixed(app, problem, "page")
    record.purpose = status.purpose_of(document) or ""
    if record.purpose:  # also the page's <meta name="description">, as the meta directive makes
        document.insert(0, nodes.meta(name="description", content=record.purpose))
    else:
        store.warn_until_fixed(app, (
            f"{place(document['source'], 1)}: no purpose sentence directly under the title; "
            "start the page with '# Title' and one sentence on what it is for"
        ), "purpose")  # fmt: skip
    record.has_code = any(document.findall(nodes.literal_block))
    record.sections = [
        ident for section in document.findall(nodes.section) for ident in section["ids"]
    ]
    targets: set[str] = set()
    for node in list(document.findall(nodes.literal_block)):
        block = page.block_at(node.line or 0) if "output" not in node["classes"] else None
        if block is None:
            continue
        wrapper = block_of(node)
        if any(marker.kind in SHOWING for marker in block.markers):
            record.blocks.append(_marked(app.env.docname, wrapper, block, targets))
            _show_aliases(wrapper, block.markers)
        status.place_badge(node, wrapper, block)
    status.place_status(document)
    downloads.place_actions(document)


def _show_aliases(wrapper: nodes.Element, markers: tuple[Marker, ...]) -> None:
    """Under the block (and its output), the other wordings of its message, with where each is
    printed: a reader who pastes one finds the entry."""
    aliases = [alias for message in messages_of(markers) for alias in message.aliases]
    if not aliases:
        return
    note = nodes.paragraph(classes=["ts-aliases"])
    note += nodes.Text("Also printed as: ")
    for index, (wording, where) in enumerate(aliases):
        note += nodes.literal(wording, wording)
        note += nodes.Text(f" ({where})" + ("; " if index < len(aliases) - 1 else "."))
    after = wrapper.next_node(descend=False, siblings=True)
    shown = after  # the output block, or the container a caption puts around it
    if isinstance(shown, nodes.container):
        shown = next(iter(shown.findall(nodes.literal_block)), None)
    has_output = isinstance(shown, nodes.literal_block) and "output" in shown["classes"]
    anchor = after if has_output else wrapper  # after its output block
    anchor.parent.insert(anchor.parent.index(anchor) + 1, note)


def _marked(
    docname: str, wrapper: nodes.Element, block: Block, taken: set[str]
) -> store.MarkedBlock:
    """The record of a marked block; a pitfall's gets an anchor right before the block."""
    target = ""
    markers = block.markers
    pitfall = next((p for m in markers if m.kind == "pitfall" and (p := pitfall_of(m))), None)
    if pitfall is not None:
        target = base = f"pitfall-{slug(pitfall.mistake)}"
        while target in taken:
            target = f"{base}-{len(taken)}"
        taken.add(target)
        wrapper.parent.insert(wrapper.parent.index(wrapper), nodes.target("", "", ids=[target]))
    anchor, heading = section_of(wrapper)
    return store.MarkedBlock(
        docname=docname,
        line=block.line,
        markers=markers,
        anchor=anchor,
        heading=heading,
        requirement=block.requirement,
        code=block.code,
        output=block.output,
        target=target,
    )
