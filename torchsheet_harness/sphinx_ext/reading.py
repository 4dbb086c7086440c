"""Reading a page (``doctree-read``): its ``%`` markers, its purpose, its badges and status line.
MyST merges consecutive ``%`` lines into one comment whose own line is unreliable, while a literal
block's ``line`` is its opening fence: so marker ``i`` of ``n`` sits on line ``fence - n + i``."""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx

from ..locations import place
from ..pages.markers import SHOWING, Marker, messages_of, parse_marker, pitfall_of
from . import status, store
from .rendering import slug


def block_of(node: nodes.literal_block) -> nodes.Element:
    """The node that stands for ``node`` among its siblings (a captioned include's wrapper)."""
    parent = node.parent
    return parent if "literal-block-wrapper" in parent.get("classes", []) else node


def markers_above(block: nodes.Element, line: int) -> tuple[Marker, ...]:
    """The markers in the comment right before ``block``, whose fence is on ``line``."""
    at = block.parent.index(block)
    comment = block.parent[at - 1] if at else None
    if not isinstance(comment, nodes.comment):
        return ()
    lines = comment.astext().splitlines()
    found = (parse_marker(text, line - len(lines) + i) for i, text in enumerate(lines))
    return tuple(marker for marker in found if marker is not None)


def output_after(block: nodes.Element) -> str | None:
    """The text of the ``:class: output`` block right after ``block``, or None."""
    following = block.next_node(descend=False, siblings=True)
    if isinstance(following, nodes.container):
        following = next(iter(following.findall(nodes.literal_block)), None)
    if isinstance(following, nodes.literal_block) and "output" in following["classes"]:
        return following.astext()
    return None


def section_of(node: nodes.Node) -> tuple[str, str]:
    """(id, title) of the innermost section holding ``node``; ('', '') outside any."""
    while node is not None and not isinstance(node, nodes.section):
        node = node.parent
    if node is None:
        return "", ""
    return (node["ids"][0] if node["ids"] else ""), node[0].astext()


def read_page(app: Sphinx, document: nodes.document) -> None:
    """doctree-read: record the page, badge its blocks, place its status line."""
    page = store.record(app.env)
    page.purpose = status.purpose_of(document) or ""
    if page.purpose:  # also the page's <meta name="description">, as the meta directive makes
        document.insert(0, nodes.meta(name="description", content=page.purpose))
    else:
        store.warn_until_fixed(app, (
            f"{place(document['source'], 1)}: no purpose sentence directly under the title; "
            "start the page with '# Title' and one sentence on what it is for"
        ), "purpose")  # fmt: skip
    page.has_code = any(document.findall(nodes.literal_block))
    targets: set[str] = set()
    for node in list(document.findall(nodes.literal_block)):
        if "output" in node["classes"]:
            continue
        block = block_of(node)
        markers = markers_above(block, node.line or 0)
        if any(marker.kind in SHOWING for marker in markers):
            page.blocks.append(_marked(app.env.docname, block, node, markers, targets))
            _show_aliases(block, markers)
        status.place_badge(app, node, block, markers)
    status.place_status(document)


def _show_aliases(block: nodes.Element, markers: tuple[Marker, ...]) -> None:
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
    after = block.next_node(descend=False, siblings=True)
    is_output = isinstance(after, nodes.literal_block) and "output" in after["classes"]
    anchor = after if is_output or output_after(block) else block  # after its output block
    anchor.parent.insert(anchor.parent.index(anchor) + 1, note)


def _marked(
    docname: str,
    block: nodes.Element,
    node: nodes.literal_block,
    markers: tuple[Marker, ...],
    taken: set[str],
) -> store.MarkedBlock:
    """The record of a marked block; a pitfall's gets an anchor right before the block."""
    target = ""
    pitfall = next((p for m in markers if m.kind == "pitfall" and (p := pitfall_of(m))), None)
    if pitfall is not None:
        target = base = f"pitfall-{slug(pitfall.mistake)}"
        while target in taken:
            target = f"{base}-{len(taken)}"
        taken.add(target)
        block.parent.insert(block.parent.index(block), nodes.target("", "", ids=[target]))
    anchor, heading = section_of(block)
    needs = " ".join(name for name in node["classes"] if name.startswith("needs-"))
    return store.MarkedBlock(
        docname=docname,
        line=node.line or 0,
        markers=markers,
        anchor=anchor,
        heading=heading,
        needs=needs,
        code=node.astext(),
        output=output_after(block),
        target=target,
    )
