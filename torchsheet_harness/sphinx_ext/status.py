"""The status line under each page's purpose sentence: what the last test run found for it.

Read from the results file (:mod:`..results`): "Verified with torch X on CPU: N blocks passed
...". Without a result for the page, or when the page changed after the run, it says it is not
verified; a page without code (an index) sums the pages of its section.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from .. import results
from ..results import PageEntry, Results
from .overview import recorded_pages


class page_status(nodes.General, nodes.Element):  # noqa: N801 (docutils node names)
    """Placeholder for the page's verification line, rendered from the results at write time."""


@dataclass
class Status:
    """What the status line says: ``state`` is verified, failed, stale or unverified."""

    state: str
    text: str
    detail: str = ""
    counts: dict[str, int] = field(default_factory=dict)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _lacked(needs: dict[str, int]) -> str:
    parts = [
        f"{count} {'needs' if count == 1 else 'need'} {label}" for label, count in needs.items()
    ]
    return ", ".join(parts)


def status_of(entries: list[PageEntry], pages_without_result: int = 0) -> Status:
    """The status line for one page's entry, or the sum over a section's pages."""
    if not entries:
        return Status(
            "unverified",
            "Not verified in this build: no test results for this page"
            + (" or the pages below it." if pages_without_result else "."),
            "Run the tests (nox -s docs-tests) before building to record them.",
        )
    total = {key: sum(e.get(key, 0) for e in entries) for key in ("passed", "failed", "errors")}
    needs: dict[str, int] = {}
    not_run = 0
    for entry in entries:
        for label, count in entry.get("needs_hardware", {}).items():
            needs[label] = needs.get(label, 0) + count
        not_run += entry.get("not_run", 0)
    versions = sorted({f"torch {e.get('torch', '?')} on {e.get('device', '?')}" for e in entries})
    where = " and ".join(versions)
    finished = max(e.get("finished", "") for e in entries)
    detail = f"Last test run: {finished}." if finished else ""
    blocks = total["passed"] + total["failed"] + total["errors"]
    if total["failed"] or total["errors"]:
        bad = total["failed"] + total["errors"]
        return Status(
            "failed",
            f"Failing with {where}: {bad} of {_plural(blocks, 'block')} "
            "failed in the last test run.",
            detail,
            total,
        )
    if not total["passed"]:
        lacked = f"{_lacked(needs)}, which the test machine ({where}) lacked" if needs else ""
        return Status(
            "unverified",
            "Not verified: no block of this page ran in the last test run"
            + (f"; {lacked}." if lacked else "."),
            detail,
            total,
        )
    text = f"Verified with {where}: {_plural(total['passed'], 'block')} passed"
    if len(entries) > 1:
        text += f" on {_plural(len(entries), 'page')}"
    extras = []
    if needs:
        extras.append(f"{_lacked(needs)}, which the test machine lacked")
    if not_run:
        extras.append(f"{not_run} shown but not run")
    if pages_without_result:
        extras.append(f"{_plural(pages_without_result, 'page')} not verified in this build")
    text += ("; " + "; ".join(extras) if extras else "") + "."
    return Status("verified", text, detail, total)


def page_status_of(found: Results | None, page: str, digest: str) -> Status:
    """The status of page ``page`` (its path under docs/, e.g. 'tensors/creating.md')."""
    entry = (found or {}).get("pages", {}).get(page)
    if entry is None:
        return status_of([])
    if entry.get("sha256") != digest:
        return Status(
            "stale",
            "Not verified in this build: the page changed after the last test run.",
            "Run the tests (nox -s docs-tests) again, then build.",
        )
    return status_of([entry])


def section_status_of(found: Results | None, pages: dict[str, str]) -> Status | None:
    """The summed status of ``pages`` (page → digest); None when there are none."""
    if not pages:
        return None
    recorded = (found or {}).get("pages", {})
    fresh = [recorded[p] for p, d in pages.items() if recorded.get(p, {}).get("sha256") == d]
    if not fresh:
        return status_of([], pages_without_result=len(pages))
    return status_of(fresh, pages_without_result=len(pages) - len(fresh))


def insert_status(app: Sphinx, document: nodes.document) -> None:
    """doctree-read: the status placeholder after the title and the purpose sentence."""
    section = next(iter(document.findall(nodes.section)), None)
    if section is None:
        return
    children = list(section.children)
    position = 1  # after the title
    if len(children) > 1 and isinstance(children[1], nodes.paragraph):
        position = 2  # after the purpose sentence
    section.insert(position, page_status())


def _page_key(app: Sphinx, docname: str) -> tuple[str, str]:
    path = Path(app.env.doc2path(docname))
    return path.relative_to(app.srcdir).as_posix(), results.page_digest(path)


def _has_code(app: Sphinx, docname: str) -> bool:
    return bool(recorded_pages(app.env).get(docname, {}).get("code"))


def status_for(app: Sphinx, docname: str) -> Status:
    """A page with code: its own result. A page without (an index): the sum over its section."""
    recorded = getattr(app, "torchsheet_results", None)
    if _has_code(app, docname):
        return page_status_of(recorded, *_page_key(app, docname))
    prefix = docname.rsplit("/", 1)[0] + "/" if "/" in docname else ""
    pages = dict(
        _page_key(app, other)
        for other in sorted(app.env.found_docs)
        if other.startswith(prefix) and _has_code(app, other)
    )
    summary = section_status_of(recorded, pages)
    return summary or Status("none", "No code on this page.")


def visit_status_html(self: Any, node: page_status) -> None:
    status = status_for(self.builder.app, self.builder.current_docname)
    title = f' title="{html.escape(status.detail)}"' if status.detail else ""
    self.body.append(
        f'<p class="ts-status ts-status-{status.state}" role="status"{title}>'
        f"{html.escape(status.text)}</p>"
    )
    raise nodes.SkipNode


def read_results(app: Sphinx) -> None:
    """builder-inited: load the results file once per build (path rule: :mod:`..results`)."""
    option = app.config.torchsheet_results_file
    path = results.results_path(option, docs=Path(app.srcdir), option_base=Path(app.srcdir))
    app.torchsheet_results = results.read_results(path)


def outdated_when_results_change(app: Sphinx, env: Any, added, changed, removed) -> list[str]:
    """env-get-outdated: new results change every page's status line, so rewrite them all."""
    digest = json.dumps(app.torchsheet_results, sort_keys=True)
    if getattr(env, "torchsheet_results_digest", None) == digest:
        return []
    env.torchsheet_results_digest = digest
    return sorted(env.found_docs)
