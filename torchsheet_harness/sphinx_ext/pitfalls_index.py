"""The ``{pitfalls}`` directive: every trap a page marks, one row each, linked to its block.

Rows come from ``% pitfall: <the mistake> | <what it does> | <the fix>`` markers
(:mod:`.sheet_markers`), in reading order; each links to the block that shows the trap running.
A row whose page is not verified in this build says so. Registered by :mod:`.quick_reference`.
"""

from __future__ import annotations

import html
import re
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive

from .sheet_markers import Pitfall
from .sheet_store import link, marks_in_order, sheets, unverified_reason


class pitfalls_index(nodes.General, nodes.Element):  # noqa: N801 (docutils node names)
    """Placeholder for the pitfalls table, rendered at write time."""


class Pitfalls(Directive):
    """``{pitfalls}``: the table of every marked trap."""

    def run(self) -> list[nodes.Node]:
        env = self.state.document.settings.env
        sheets(env)["pitfalls"][env.docname] = True
        return [pitfalls_index()]


def inline_code(text: str) -> str:
    """HTML for ``text`` with its `backticked` spans as <code>."""
    parts = re.split(r"`([^`]+)`", text)
    return "".join(
        f"<code>{html.escape(part)}</code>" if i % 2 else html.escape(part)
        for i, part in enumerate(parts)
    )


def row(translator: Any, pitfall: Pitfall) -> str:
    app = translator.builder.app
    reason = unverified_reason(app, pitfall.docname, pitfall.block_line)
    title = app.env.titles[pitfall.docname].astext()
    href = link(translator, pitfall.docname, pitfall.anchor)
    state = f' ts-qr-unverified" title="{html.escape(reason)}' if reason else ""
    return (
        f'<tr class="ts-pitfall{state}">'
        f'<td class="ts-pitfall-mistake">{inline_code(pitfall.mistake)}</td>'
        f'<td class="ts-pitfall-effect">{inline_code(pitfall.effect)}</td>'
        f'<td class="ts-pitfall-fix">{inline_code(pitfall.fix)}</td>'
        f'<td class="ts-pitfall-where"><a href="{href}">{html.escape(title)} › '
        f"{inline_code(pitfall.heading)}</a></td></tr>"
    )


def visit_html(self: Any, node: pitfalls_index) -> None:
    rows = [row(self, p) for _, pitfalls in marks_in_order(self.builder.app) for p in pitfalls]
    self.body.append(
        f'<p class="ts-qr-summary">{len(rows)} traps, each shown running on its page.</p>'
        '<table class="ts-pitfalls"><thead><tr><th>The mistake</th><th>What it does</th>'
        f"<th>The fix</th><th>Shown in</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )
    raise nodes.SkipNode
