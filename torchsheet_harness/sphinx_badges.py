"""Sphinx extension: what the tests know about a page, shown on the page.

- A block's requirement (``:class: needs-cuda`` and friends) becomes a badge above the block,
  from the same :func:`~.requirements.parse_classes` the test gate uses; an unknown ``needs-*``
  class is a build warning naming page:line (``-W`` makes it fail).
- A block exempted with ``% not-run: reason`` gets a discreet "not run" badge with the reason.
- Every page gets a status line under its purpose sentence, from the results file the test run
  writes (:mod:`.results_file`): "Verified with torch X on CPU: N blocks passed ...". Without a
  result for the page, or when the page changed after the run, it says it is not verified.
- ``{page-overview}`` lists every page in navigation order with its title and purpose sentence.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.application import Sphinx
from sphinx.util import logging

from .locations import place
from .requirements import Requirement, RequirementError, parse_classes

logger = logging.getLogger(__name__)

RESULTS_ENV = "TORCHSHEET_RESULTS"
DEFAULT_RESULTS = "_build/results.json"  # relative to the docs source directory
_NOT_RUN = re.compile(r"^not-run:\s*(?P<reason>.*\S)", re.DOTALL)


class requirement_badge(nodes.General, nodes.Element):  # noqa: N801 (docutils node names)
    """Badge above a code block: ``label`` and ``how`` (one line on how it is run)."""


class page_status(nodes.General, nodes.Element):  # noqa: N801
    """Placeholder for the page's verification line, rendered from the results at write time."""


class page_overview(nodes.General, nodes.Element):  # noqa: N801
    """Placeholder for the list of pages with their purpose sentences."""


# ---------------------------------------------------------------------------------------------
# Reading the test results


def page_digest(path: str | os.PathLike[str]) -> str:
    """The sha256 of a page's source, as the results file records it."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def load_results(path: Path) -> dict[str, Any] | None:
    """The results file's content, or None when there is none (or it is unreadable)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("pages"), dict) else None


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


def status_of(entries: list[dict[str, Any]], pages_without_result: int = 0) -> Status:
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


def page_status_of(results: dict[str, Any] | None, page: str, digest: str) -> Status:
    """The status of page ``page`` (its path under docs/, e.g. 'tensors/creating.md')."""
    entry = (results or {}).get("pages", {}).get(page)
    if entry is None:
        return status_of([])
    if entry.get("sha256") != digest:
        return Status(
            "stale",
            "Not verified in this build: the page changed after the last test run.",
            "Run the tests (nox -s docs-tests) again, then build.",
        )
    return status_of([entry])


def section_status_of(results: dict[str, Any] | None, pages: dict[str, str]) -> Status | None:
    """The summed status of ``pages`` (page → digest); None when there are none."""
    if not pages:
        return None
    recorded = (results or {}).get("pages", {})
    fresh = [recorded[p] for p, d in pages.items() if recorded.get(p, {}).get("sha256") == d]
    if not fresh:
        return status_of([], pages_without_result=len(pages))
    return status_of(fresh, pages_without_result=len(pages) - len(fresh))


def results_path(app: Sphinx) -> Path:
    """Where the results file is read from: $TORCHSHEET_RESULTS, the config value, or default."""
    configured = os.environ.get(RESULTS_ENV) or app.config.torchsheet_results_file
    return Path(app.srcdir, configured or DEFAULT_RESULTS)


# ---------------------------------------------------------------------------------------------
# Reading the pages


def _source_place(node: nodes.Element, document: nodes.document) -> str:
    return place(node.source or document["source"], node.line or 0)


def _not_run_reason(node: nodes.Element) -> str | None:
    """The reason of a '% not-run: reason' comment directly before ``node``, if any."""
    target = node.parent if isinstance(node.parent, nodes.container) else node
    before = target.previous_sibling() if target.parent is not None else None
    if isinstance(before, nodes.comment) and (match := _NOT_RUN.match(before.astext().strip())):
        return match["reason"]
    return None


def _requirement(node: nodes.literal_block, document: nodes.document) -> Requirement | None:
    needs = " ".join(name for name in node["classes"] if name.startswith("needs-"))
    try:
        return parse_classes(needs, _source_place(node, document))
    except RequirementError as error:
        logger.warning(str(error), type="torchsheet", subtype="requirement")
        return None


def mark_blocks(app: Sphinx, document: nodes.document) -> None:
    """doctree-read: badges on requirement-bearing and not-run blocks; the status placeholder."""
    for node in list(document.findall(nodes.literal_block)):
        if node.get("source") and node["source"] != node.source:
            node["classes"].append("ts-script")  # a literalinclude: run as a script, not pasted
        reason = _not_run_reason(node)
        if reason is not None:
            node["classes"].append("ts-not-run")
            _add_badge(node, "not run", f"Shown, not run by the tests: {reason}.", "ts-not-run")
            continue
        requirement = _requirement(node, document)
        if requirement is not None and not requirement.is_cpu_only:
            kinds = " ".join(f"ts-needs-{marker}" for marker in requirement.markers)
            _add_badge(node, requirement.label, requirement.how_to_run, kinds)
    _insert_status(document)


def _add_badge(node: nodes.literal_block, label: str, how: str, kinds: str) -> None:
    badge = requirement_badge(label=label, how=how, kinds=kinds)
    wrapper = nodes.container(classes=["ts-gated"])
    # A literalinclude with a caption sits in a captioned container: badge the whole thing.
    target = node.parent if "literal-block-wrapper" in node.parent.get("classes", []) else node
    target.parent.replace(target, wrapper)  # (replace_self would copy the block's classes)
    wrapper += badge
    wrapper += target


def _insert_status(document: nodes.document) -> None:
    section = next(iter(document.findall(nodes.section)), None)
    if section is None:
        return
    children = list(section.children)
    position = 1  # after the title
    if len(children) > 1 and isinstance(children[1], nodes.paragraph):
        position = 2  # after the purpose sentence
    section.insert(position, page_status())


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
    _pages(app.env)[app.env.docname] = {"purpose": purpose or "", "code": has_code}


def _pages(env: Any) -> dict[str, dict[str, Any]]:
    """Per page, what the other pages' status lines and the overview need to know."""
    if not hasattr(env, "torchsheet_pages"):
        env.torchsheet_pages = {}
    return env.torchsheet_pages


def purge_page(app: Sphinx, env: Any, docname: str) -> None:
    _pages(env).pop(docname, None)


def merge_pages(app: Sphinx, env: Any, docnames: set[str], other: Any) -> None:
    _pages(env).update({d: info for d, info in _pages(other).items() if d in docnames})


class PageOverview(Directive):
    """``{page-overview}``: every page in navigation order, with its purpose sentence."""

    def run(self) -> list[nodes.Node]:
        return [page_overview()]


# ---------------------------------------------------------------------------------------------
# Writing HTML


def _inline_code(text: str) -> str:
    """HTML for ``text`` with `backticked` spans as <code>."""
    parts = re.split(r"`([^`]+)`", text)
    return "".join(
        f"<code>{html.escape(part)}</code>" if i % 2 else html.escape(part)
        for i, part in enumerate(parts)
    )


def visit_badge_html(self: Any, node: requirement_badge) -> None:
    how_plain = html.escape(node["how"].replace("`", ""))
    self.body.append(
        f'<div class="ts-requirement {node["kinds"]}" role="note">'
        f'<span class="ts-badge" title="{how_plain}">{html.escape(node["label"])}</span>'
        f'<span class="ts-how">{_inline_code(node["how"])}</span></div>'
    )
    raise nodes.SkipNode


def _page_key(app: Sphinx, docname: str) -> tuple[str, str]:
    path = Path(app.env.doc2path(docname))
    return path.relative_to(app.srcdir).as_posix(), page_digest(path)


def _has_code(app: Sphinx, docname: str) -> bool:
    return bool(_pages(app.env).get(docname, {}).get("code"))


def status_for(app: Sphinx, docname: str) -> Status:
    """A page with code: its own result. A page without (an index): the sum over its section."""
    results = getattr(app, "torchsheet_results", None)
    if _has_code(app, docname):
        return page_status_of(results, *_page_key(app, docname))
    prefix = docname.rsplit("/", 1)[0] + "/" if "/" in docname else ""
    pages = dict(
        _page_key(app, other)
        for other in sorted(app.env.found_docs)
        if other.startswith(prefix) and _has_code(app, other)
    )
    summary = section_status_of(results, pages)
    return summary or Status("none", "No code on this page.")


def visit_status_html(self: Any, node: page_status) -> None:
    status = status_for(self.builder.app, self.builder.current_docname)
    title = f' title="{html.escape(status.detail)}"' if status.detail else ""
    self.body.append(
        f'<p class="ts-status ts-status-{status.state}" role="status"{title}>'
        f"{html.escape(status.text)}</p>"
    )
    raise nodes.SkipNode


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
    pages = _pages(app.env)
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


def skip_node(self: Any, node: nodes.Element) -> None:
    raise nodes.SkipNode


def add_meta_description(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any
) -> None:
    """html-page-context: the purpose sentence as the page's meta description."""
    purpose = _pages(app.env).get(pagename, {}).get("purpose")
    if purpose and doctree is not None:
        meta = f'<meta name="description" content="{html.escape(purpose)}" />\n'
        context["metatags"] = context.get("metatags", "") + meta


# ---------------------------------------------------------------------------------------------
# Keeping incremental builds honest


def read_results(app: Sphinx) -> None:
    """builder-inited: load the results file once per build."""
    app.torchsheet_results = load_results(results_path(app))


def outdated_when_results_change(app: Sphinx, env: Any, added, changed, removed) -> list[str]:
    """env-get-outdated: new results change every page's status line, so rewrite them all."""
    digest = json.dumps(app.torchsheet_results, sort_keys=True)
    if getattr(env, "torchsheet_results_digest", None) == digest:
        return []
    env.torchsheet_results_digest = digest
    return sorted(env.found_docs)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("torchsheet_results_file", "", "env", types=[str])
    no_html = {builder: (skip_node, None) for builder in ("latex", "text", "man", "texinfo")}
    app.add_node(requirement_badge, html=(visit_badge_html, None), **no_html)
    app.add_node(page_status, html=(visit_status_html, None), **no_html)
    app.add_node(page_overview, html=(visit_overview_html, None), **no_html)
    app.add_directive("page-overview", PageOverview)
    app.connect("builder-inited", read_results)
    app.connect("env-get-outdated", outdated_when_results_change)
    app.connect("doctree-read", record_page)
    app.connect("doctree-read", mark_blocks)
    app.connect("env-purge-doc", purge_page)
    app.connect("env-merge-info", merge_pages)
    app.connect("html-page-context", add_meta_description)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
