"""``{errors}``: every message a block shows torch raising (``% error:``, ``% warning:``, with their
``% alias:`` wordings), by area: the page it is on; ``{errors-count}``: how many. And the errors
evidence file (``torchsheet_errors_evidence``): a row whose ``page`` is set promises that page a
marker whose text is the row's ``marker`` (a how-to row: a section whose id is its ``section``);
a broken promise is a build warning naming the file and row (a missing file is not an error)."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

from ..locations import display_path
from ..pages.markers import Message, messages_of
from ..pages.messages import raised_class
from . import store
from .rendering import cell, inline_placeholder, link, placeholder, slug, table
from .status_text import unverified_reason

logger = logging.getLogger(__name__)
HEADER = ("The message", "Shown in")

Entry = tuple[store.MarkedBlock, Message]


def areas(app: Sphinx) -> list[tuple[str, list[Entry]]]:
    """(docname, its entries sorted by message) of every page with entries, in reading order."""
    found = []
    for docname, page in store.in_reading_order(app):
        entries = [
            (block, message) for block in page.blocks for message in messages_of(block.markers)
        ]
        if entries:
            found.append(
                (docname, sorted(entries, key=lambda e: (e[1].text.casefold(), e[0].heading)))
            )
    return found


class errors_index(placeholder):  # noqa: N801 (docutils node names)
    """Every marked message, by area."""

    def render(self, app: Sphinx, docname: str) -> list[nodes.Node]:
        found = areas(app)
        total = sum(len(entries) for _, entries in found)
        summary = (
            f"{total} messages, each raised by a block on its page, in {len(found)} areas: the "
            "pages that show them, in the site's order."
        )
        content = nodes.container("", nodes.paragraph("", summary, classes=["ts-qr-summary"]),
                                  classes=["no-search"])  # fmt: skip
        for area, entries in found:
            title = store.title(app, area)
            rows = [_row(app, docname, block, message) for block, message in entries]
            content += nodes.section(
                "",
                nodes.title("", f"{title} ({len(entries)})"),
                table(HEADER, rows, ["ts-errors"]),
                ids=[f"errors-{slug(title)}"],
                classes=["ts-errors-area"],
            )
        return [content]


def _row(app: Sphinx, docname: str, block: store.MarkedBlock, message: Message) -> nodes.row:
    raised = raised_class(message.kind, message.text, block.code, block.output)
    shown = f"{raised}: {message.text}" if raised else message.text
    text = nodes.paragraph("", "", nodes.literal(shown, shown))
    if message.kind == "warning":
        text += nodes.inline("", " (warning)", classes=["ts-error-kind"])
    entry = nodes.entry("", text, classes=["ts-error-message"])
    if message.aliases:
        older = nodes.bullet_list(classes=["ts-error-aliases"])
        for wording, where in message.aliases:
            line = nodes.paragraph("", "Older wording: ", nodes.literal(wording, wording))
            line += nodes.inline("", f" ({where})", classes=["ts-error-alias-where"])
            older += nodes.list_item("", line)
        entry += older
    reason = unverified_reason(store.view(app, block.docname), block.line)
    heading = link(app, docname, block.docname, block.anchor, [nodes.Text(block.heading)],
                   title=reason or "")  # fmt: skip
    needs, note = block.requirement, []
    if needs.gpus or needs.slurm:  # what the CPU test run lacks
        lacked = "Slurm" if needs.slurm else "CUDA" if needs.gpus == 1 else f"{needs.gpus} GPUs"
        note = [nodes.inline("", f" (needs {lacked})", classes=["ts-error-needs"])]
    classes = ["ts-error"] + (["ts-qr-unverified"] if reason else [])
    return nodes.row("", entry, cell(heading, *note, classes=["ts-error-where"]), classes=classes)


class errors_count(inline_placeholder):  # noqa: N801
    """'49 messages': how many messages the errors index lists (``noun`` after the number)."""

    def render(self, app: Sphinx, docname: str) -> list[nodes.Node]:
        count = sum(len(entries) for _, entries in areas(app))
        return [nodes.Text(f"{count} {self['noun']}")]


def errors_count_role(name, rawtext, text, lineno, inliner, options=None, content=None):  # noqa: ARG001
    store.record(inliner.document.settings.env).shows_others = True
    return [errors_count(noun=text)], []


def marker_texts(env: Any, docname: str) -> set[str]:
    """The messages and older wordings the markers of page ``docname`` name."""
    page = store.records(env).get(docname, store.PageRecord())
    messages = [message for block in page.blocks for message in messages_of(block.markers)]
    return {text for m in messages for text in (m.text, *(wording for wording, _ in m.aliases))}


def check_evidence(app: Sphinx, env: Any) -> None:
    """env-check-consistency: each row with a page has its marker there."""
    if not app.config.torchsheet_errors_evidence:
        return
    path = Path(app.confdir, app.config.torchsheet_errors_evidence).resolve()
    if not path.is_file():
        return
    shown = display_path(path, Path(app.confdir).parent)
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        for row in reader:
            page = (row.get("page") or "").strip()
            if not page:
                continue
            docname = page.removeprefix("docs/").removesuffix(".md")  # either form names it
            section = (row.get("section") or "").strip()
            if docname not in env.found_docs:
                why = f"page {page!r} is not a page of the site"
            elif row.get("kind") == "howto":
                if section in store.records(env).get(docname, store.PageRecord()).sections:
                    continue
                why = (
                    f"no section of {page} has the id {section!r} (a how-to row names its section)"
                )
            elif (row.get("marker") or "").strip() in marker_texts(env, docname):
                continue
            else:
                why = (
                    f"no '% error:', '% warning:' or '% alias:' marker on {page} has the text "
                    f"{row.get('marker', '')!r}"
                )
            logger.warning(
                f"{shown}:{reader.line_num}: {why}", type="torchsheet", subtype="evidence"
            )
