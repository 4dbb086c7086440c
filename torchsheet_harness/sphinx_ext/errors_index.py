"""The ``{errors}`` directive: every message a page shows torch raising, sorted, one row each.

Rows come from ``% error: <message>`` and ``% warning: <message>`` markers
(:mod:`.error_markers`), read when each page is read (a bad marker is a build warning naming
page:line, so ``-W`` fails); each row gives the message, the page and the section of the block
that raises it, linked to that section, and says when that block needs hardware or is not
verified in this build. Rendered at write time from what every page recorded.
"""

from __future__ import annotations

import html
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.application import Sphinx
from sphinx.util import logging

from .error_markers import ErrorEntry, collect_errors
from .sheet_store import link, sheets, unverified_reason

logger = logging.getLogger(__name__)
#: What a row says about a block that needs hardware the CPU test run lacks.
NEEDS = {"needs-cuda": "needs CUDA", "needs-gpus": "needs GPUs", "needs-slurm": "needs Slurm"}


class errors_index(nodes.General, nodes.Element):  # noqa: N801 (docutils node names)
    """Placeholder for the errors table, rendered at write time."""


class Errors(Directive):
    """``{errors}``: the table of every marked message."""

    def run(self) -> list[nodes.Node]:
        env = self.state.document.settings.env
        sheets(env)["error_indexes"][env.docname] = True
        return [errors_index()]


def read_error_markers(app: Sphinx, document: nodes.document) -> None:
    """doctree-read: the page's error entries; a warning for each marker it cannot honour."""
    entries, errors = collect_errors(document, app.env.docname)
    for error in errors:
        logger.warning(error, type="torchsheet", subtype="marker")
    if entries:
        sheets(app.env)["errors"][app.env.docname] = entries


def sorted_entries(env: Any) -> list[ErrorEntry]:
    """Every entry of every page, by message (case-folded), then page and section."""
    entries = [entry for found in sheets(env)["errors"].values() for entry in found]
    return sorted(entries, key=lambda e: (e.message.casefold(), e.docname, e.heading))


def needs_note(classes: str) -> str:
    notes = [text for prefix, text in NEEDS.items() if prefix in classes]
    return f' <span class="ts-error-needs">({", ".join(notes)})</span>' if notes else ""


def row(translator: Any, entry: ErrorEntry) -> str:
    app = translator.builder.app
    reason = unverified_reason(app, entry.docname, entry.block_line)
    title = app.env.titles[entry.docname].astext()
    href = link(translator, entry.docname, entry.anchor)
    state = f' ts-qr-unverified" title="{html.escape(reason)}' if reason else ""
    kind = ' <span class="ts-error-kind">(warning)</span>' if entry.kind == "warning" else ""
    shown = f"{entry.raised}: {entry.message}" if entry.raised else entry.message
    return (
        f'<tr class="ts-error{state}">'
        f'<td class="ts-error-message"><code>{html.escape(shown)}</code>{kind}</td>'
        f'<td class="ts-error-where"><a href="{href}">{html.escape(title)} › '
        f"{html.escape(entry.heading)}</a>{needs_note(entry.classes)}</td></tr>"
    )


def visit_html(self: Any, node: errors_index) -> None:
    rows = [row(self, entry) for entry in sorted_entries(self.builder.app.env)]
    self.body.append(
        f'<p class="ts-qr-summary">{len(rows)} messages, each raised by a block on its page.</p>'
        '<table class="ts-errors"><thead><tr><th>The message</th><th>Shown in</th></tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table>"
    )
    raise nodes.SkipNode


def register(app: Sphinx, no_html: dict[str, Any]) -> None:
    """Add the errors index's node, directive and hook (called by the extension's ``setup()``);
    purging, merging and rewriting it are :mod:`.sheet_store`'s, hooked by the quick reference."""
    app.add_node(errors_index, html=(visit_html, None), **no_html)
    app.add_directive("errors", Errors)
    app.connect("doctree-read", read_error_markers)
