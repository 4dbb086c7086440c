"""Badges above code blocks: what a block needs, or that it is shown but not run.

The blocks come from :func:`~torchsheet_harness.pages.blocks.lex_blocks`, the reading of a page
the test parser uses, matched to the doctree's literal blocks by their first line: a block's
``needs-*`` classes become a badge from the same :class:`~..pages.requirements.Requirement`
that gates its test, an unknown ``needs-*`` class is a build warning naming page:line (``-W``
makes it fail), and a block after ``% not-run: reason`` gets a discreet "not run" badge.

Where the recorded runs disagree about a block (:func:`.verdicts.block_verdict`: it failed in
some environment, or was verified in some and skipped or not run in others), its badge carries
one more line saying where, in its tooltip too; a CPU block that has no badge gets one
("failing", "partly verified") for it. A block verified in every run that recorded it says
nothing more.

A fence that swallowed a heading or another block, or never closes, is a warning too
(:func:`~torchsheet_harness.pages.coverage.fence_faults`).

A page that warned is read again by every later build (:func:`reread_pages_that_warned`) until
it is fixed: an incremental build skips unchanged pages, and would otherwise pass without the
warning.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sybil import Document

from ..locations import place
from ..pages.blocks import Block, lex_blocks
from ..pages.coverage import fence_faults
from ..pages.requirements import RequirementError
from ..results import page_digest
from . import verdicts

logger = logging.getLogger(__name__)


class requirement_badge(nodes.General, nodes.Element):  # noqa: N801 (docutils node names)
    """Badge above a code block: ``label`` and ``how`` (one line on how it is run)."""


def page_blocks(source: str) -> dict[int, Block]:
    """The blocks of the page at ``source``, by their first line."""
    document = Document(Path(source).read_text(encoding="utf-8"), source)
    return {block.line: block for block in lex_blocks(document)}


def warn_until_fixed(app: Sphinx, message: str, subtype: str = "requirement") -> None:
    """A warning about the page being read; the page is read again by every later build until
    it warns no more (see module docstring)."""
    logger.warning(message, type="torchsheet", subtype=subtype)
    warned = getattr(app.env, "torchsheet_warned", None)
    if warned is None:
        warned = app.env.torchsheet_warned = set()
    warned.add(app.env.docname)


def reread_pages_that_warned(app: Sphinx, env: Any, added, changed, removed) -> list[str]:  # noqa: ARG001
    """env-get-outdated: pages that warned last time are read again."""
    return sorted(getattr(env, "torchsheet_warned", set()) & set(env.found_docs))


def purge_warned(app: Sphinx, env: Any, docname: str) -> None:  # noqa: ARG001
    getattr(env, "torchsheet_warned", set()).discard(docname)


def merge_warned(app: Sphinx, env: Any, docnames: set[str], other: Any) -> None:  # noqa: ARG001
    theirs = getattr(other, "torchsheet_warned", set()) & set(docnames)
    if theirs:
        env.torchsheet_warned = getattr(env, "torchsheet_warned", set()) | theirs


def mark_blocks(app: Sphinx, document: nodes.document) -> None:
    """doctree-read: badges on requirement-bearing and not-run blocks."""
    source = document["source"]
    for fault in fence_faults(Document(Path(source).read_text(encoding="utf-8"), source)):
        warn_until_fixed(app, fault)
    blocks = page_blocks(source)
    view = _view(app, source)
    for node in list(document.findall(nodes.literal_block)):
        block = blocks.get(node.line) if node.source == source else None
        if block is None:
            if any(name.startswith("needs-") for name in node["classes"]):
                warn_until_fixed(
                    app,
                    f"{place(node.source or source, node.line or 0)}: a code block with a "
                    "needs-* class that the harness does not see as a block",
                )
            continue
        if block.kind == "literalinclude":
            node["classes"].append("ts-script")  # run as a script, not pasted
        if block.not_run:
            node["classes"].append("ts-not-run")
            how = f"Shown, not run by the tests: {block.not_run}."
            _add_badge(node, "not run", how, "ts-not-run")
            continue
        try:
            requirement = block.requirement(source)
        except RequirementError as error:
            warn_until_fixed(app, str(error))
            continue
        verdict = verdicts.block_verdict(view, block.line) if view is not None else None
        if not requirement.is_cpu_only:
            kinds = " ".join(f"ts-needs-{marker}" for marker in requirement.markers)
            _add_badge(node, requirement.label, requirement.how_to_run, kinds, verdict)
        elif verdict is not None and verdict[0] != "unverified":
            label = "failing" if verdict[0] == "failed" else "partly verified"
            _add_badge(node, label, "Runs on CPU; tested on every run of the suite.", "", verdict)


def _view(app: Sphinx, source: str) -> verdicts.PageView | None:
    """What the recorded runs say about the page at ``source`` (None: nothing recorded)."""
    found = getattr(app, "torchsheet_results", None)
    if not found:
        return None
    try:
        page = Path(source).resolve().relative_to(Path(app.srcdir).resolve()).as_posix()
    except ValueError:
        return None
    lines = verdicts.runnable_lines(source)
    return verdicts.page_view(found, page, page_digest(source), lines)


def _add_badge(
    node: nodes.literal_block,
    label: str,
    how: str,
    kinds: str,
    verdict: tuple[str, str] | None = None,
) -> None:
    state, result = verdict or ("", "")
    if state:
        kinds = f"{kinds} ts-result-{state}".strip()
    badge = requirement_badge(label=label, how=how, kinds=kinds, result=result)
    wrapper = nodes.container(classes=["ts-gated"])
    # A literalinclude with a caption sits in a captioned container: badge the whole thing.
    target = node.parent if "literal-block-wrapper" in node.parent.get("classes", []) else node
    target.parent.replace(target, wrapper)  # (replace_self would copy the block's classes)
    wrapper += badge
    wrapper += target


def _inline_code(text: str) -> str:
    """HTML for ``text`` with `backticked` spans as <code>."""
    parts = re.split(r"`([^`]+)`", text)
    return "".join(
        f"<code>{html.escape(part)}</code>" if i % 2 else html.escape(part)
        for i, part in enumerate(parts)
    )


def visit_badge_html(self: Any, node: requirement_badge) -> None:
    result = node.get("result", "")
    how_plain = html.escape(" ".join(filter(None, [node["how"].replace("`", ""), result])))
    line = f'<span class="ts-result">{html.escape(result)}</span>' if result else ""
    self.body.append(
        f'<div class="ts-requirement {node["kinds"]}" role="note">'
        f'<span class="ts-badge" title="{how_plain}">{html.escape(node["label"])}</span>'
        f'<span class="ts-how">{_inline_code(node["how"])}</span>{line}</div>'
    )
    raise nodes.SkipNode
