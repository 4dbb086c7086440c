"""What the marked pages recorded for the sheets, kept in the build environment, and its order.

Per page, the excerpts and pitfalls its markers yield (:mod:`.sheet_markers`) and its error
entries (:mod:`.error_markers`); which pages hold a ``{quick-reference}`` (with its sections),
``{pitfalls}`` or ``{errors}``; the pages in reading order; and
whether a page's blocks count as run in the last test run, read through
:mod:`.status` (the results file the status line reads).
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

from .sheet_markers import Excerpt
from .status import recorded_results
from .status_text import page_status_of, view_of
from .verdicts import block_verdict


def sheets(env: Any) -> dict[str, dict[str, Any]]:
    """What the pages recorded: 'marks' (docname → (excerpts, pitfalls)), 'errors' (docname →
    error entries), 'sections', 'pitfalls', 'error_indexes' (docnames holding a directive)."""
    if not hasattr(env, "torchsheet_sheets"):
        env.torchsheet_sheets = {
            "marks": {},
            "errors": {},
            "sections": {},
            "pitfalls": {},
            "error_indexes": {},
        }
    return env.torchsheet_sheets


def purge(app: Sphinx, env: Any, docname: str) -> None:
    for table in sheets(env).values():
        table.pop(docname, None)


def merge(app: Sphinx, env: Any, docnames: set[str], other: Any) -> None:
    for key, table in sheets(other).items():
        sheets(env)[key].update({d: v for d, v in table.items() if d in docnames})


def rewrite_sheets(app: Sphinx, env: Any) -> list[str]:
    """env-get-updated: the sheets show other pages, so write them on every build."""
    tables = sheets(env)
    return sorted(set(tables["sections"]) | set(tables["pitfalls"]) | set(tables["error_indexes"]))


def navigation_order(app: Sphinx) -> list[str]:
    """Every page in reading order (the order of the site's previous/next links)."""
    relations = app.env.collect_relations()
    order, current = [], app.config.root_doc
    while current and current not in order:
        order.append(current)
        current = relations.get(current, [None, None, None])[2]
    return order


def marks_in_order(app: Sphinx) -> list[tuple[list[Excerpt], list]]:
    marks = sheets(app.env)["marks"]
    order = {docname: i for i, docname in enumerate(navigation_order(app))}
    return [marks[d] for d in sorted(marks, key=lambda d: (order.get(d, len(order)), d))]


def unverified_reason(app: Sphinx, docname: str, block_line: int) -> str | None:
    """Why the block at ``block_line`` of ``docname`` does not count as verified, or None.

    Verified means: a recorded run of the page as it is now passed that block, and no run
    failed it (the same per-block verdicts the block's badge and the status line use).
    """
    path = Path(app.env.doc2path(docname))
    page = path.relative_to(app.srcdir).as_posix()
    view = view_of(recorded_results(app), page, path)
    if not view.environments:
        return page_status_of(recorded_results(app), page, path).text
    verdict = block_verdict(view, block_line)
    if verdict is not None and verdict[0] != "verified":
        return verdict[1]
    if block_line not in view.verified():
        return "Not verified: no recorded run of this page ran this block."
    return None


def link(translator: Any, docname: str, anchor: str) -> str:
    uri = translator.builder.get_relative_uri(translator.builder.current_docname, docname)
    return html.escape(f"{uri}#{anchor}" if anchor else uri)
