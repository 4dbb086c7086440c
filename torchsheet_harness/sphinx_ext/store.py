"""What the build keeps: per page a :class:`PageRecord` in the environment; per build the results
files, each page's merged view and the reading order. Pages that show other pages or the results
are written again by every build (Sphinx writes only the pages it read)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

from .. import results
from ..pages.markers import Marker
from ..pages.page import read_page
from ..pages.requirements import Requirement
from ..results import Results
from .verdicts import PageView, page_view

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class MarkedBlock:
    """A block with ``%`` markers above it, as the indexes show it."""

    docname: str
    line: int  # its opening fence: its key in the results files
    markers: tuple[Marker, ...]
    anchor: str  # the id of its section ('' for none)
    heading: str  # that section's title
    requirement: Requirement  # what it needs (the page model's)
    code: str  # as shown (an included script: the file's text)
    output: str | None  # the text of the output block after it
    target: str = ""  # the id placed right before it (pitfalls link there)


@dataclass
class PageRecord:
    purpose: str = ""
    has_code: bool = False
    blocks: list[MarkedBlock] = field(default_factory=list)
    quickref_sections: list[str] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)  # the ids of its sections
    shows_others: bool = False  # holds an index or a count of other pages' markers
    warned: bool = False  # read again by every build until it no longer warns


def records(env: Any) -> dict[str, PageRecord]:
    return vars(env).setdefault("torchsheet_records", {})


def record(env: Any, docname: str | None = None) -> PageRecord:
    """The record of ``docname`` (default: the page being read), created when missing."""
    return records(env).setdefault(docname or env.docname, PageRecord())


def purge(app: Sphinx, env: Any, docname: str) -> None:
    records(env).pop(docname, None)


def merge(app: Sphinx, env: Any, docnames: set[str], other: Any) -> None:
    records(env).update({d: r for d, r in records(other).items() if d in docnames})


def warn_until_fixed(app: Sphinx, message: str, subtype: str) -> None:
    """A warning about the page being read, which is read again until it warns no more."""
    logger.warning(message, type="torchsheet", subtype=subtype)
    record(app.env).warned = True


def reread_warned(app: Sphinx, env: Any, added, changed, removed) -> list[str]:  # noqa: ARG001
    """env-get-outdated: the pages that warned last time."""
    return sorted(d for d, r in records(env).items() if r.warned and d in env.found_docs)


def rewritten(app: Sphinx, env: Any) -> list[str]:
    """env-get-updated: the pages to write again although unchanged (see module docstring)."""
    digest = hashlib.sha256(json.dumps(found_results(app), sort_keys=True).encode()).hexdigest()
    if getattr(env, "torchsheet_results_digest", None) != digest:
        env.torchsheet_results_digest = digest
        return sorted(env.found_docs)
    return sorted(d for d, r in records(env).items() if r.shows_others or not r.has_code)


def _build(app: Sphinx) -> dict[str, Any]:
    return vars(app).setdefault("torchsheet_build", {})


def read_results(app: Sphinx) -> None:
    """builder-inited: the results files this build reads."""
    option = app.config.torchsheet_results
    if option is None:
        option = app.config.torchsheet_results_file
    paths = results.input_paths(option, docs=Path(app.srcdir), option_base=Path(app.srcdir))
    _build(app)["results"] = results.read_all(paths)


def found_results(app: Sphinx) -> list[Results]:
    return _build(app).get("results", [])


def view(app: Sphinx, docname: str) -> PageView:
    """What the recorded runs say about ``docname`` as it is now (once per build)."""
    views = _build(app).setdefault("views", {})
    if docname not in views:
        path = Path(app.env.doc2path(docname))  # the results name it 'tensors/creating.md'
        page = read_page(path)
        needs = {b.line: b.requirement for b in page.blocks if not b.requirement.is_cpu_only}
        name = path.relative_to(app.srcdir).as_posix()
        views[docname] = page_view(found_results(app), name, page.digest, needs)
    return views[docname]


def reading_order(app: Sphinx) -> list[tuple[str, int]]:
    """(docname, depth) of every page below the root's toctrees, in the site's reading order."""
    if "order" not in _build(app):
        order: list[tuple[str, int]] = []
        seen = {app.config.root_doc}

        def walk(docname: str, depth: int) -> None:
            for child in app.env.toctree_includes.get(docname, []):
                if child not in seen:
                    seen.add(child)
                    order.append((child, depth))
                    walk(child, depth + 1)

        walk(app.config.root_doc, 0)
        _build(app)["order"] = order
    return _build(app)["order"]


def in_reading_order(app: Sphinx) -> list[tuple[str, PageRecord]]:
    """Every page's record, the root first, then in reading order (pages outside it last)."""
    position = {app.config.root_doc: -1} | {d: i for i, (d, _) in enumerate(reading_order(app))}
    found = records(app.env)
    return [(d, found[d]) for d in sorted(found, key=lambda d: (position.get(d, len(found)), d))]


def title(app: Sphinx, docname: str) -> str:
    titles = app.env.titles
    return titles[docname].astext() if docname in titles else docname
