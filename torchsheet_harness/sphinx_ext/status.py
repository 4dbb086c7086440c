"""The status line under each page's purpose sentence: what the recorded test runs found for it.

Read from every results file (:mod:`..results`), merged by :mod:`.verdicts`: "Verified with
torch 2.13.0 and 2.14.1 on CPU (42 blocks), and on NVIDIA H200 with torch 2.11.0+cu130 (7 CUDA
blocks)". A failing block in any environment makes it "Failing with ..."; a run of an older
source of the page is dropped; blocks no run recorded make it "Partly verified"; without any
fresh result it says it is not verified. A page without code (an index) sums its section.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from .. import results, results_paths
from ..results import Results
from .overview import recorded_pages
from .status_text import Status, page_status_of, section_status_of


class page_status(nodes.General, nodes.Element):  # noqa: N801 (docutils node names)
    """Placeholder for the page's verification line, rendered from the results at write time."""


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


def _page_key(app: Sphinx, docname: str) -> tuple[str, Path]:
    path = Path(app.env.doc2path(docname))
    return path.relative_to(app.srcdir).as_posix(), path


def _has_code(app: Sphinx, docname: str) -> bool:
    return bool(recorded_pages(app.env).get(docname, {}).get("code"))


def status_for(app: Sphinx, docname: str) -> Status:
    """A page with code: its own result. A page without (an index): the sum over its section."""
    recorded = recorded_results(app)
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


def recorded_results(app: Sphinx) -> list[Results]:
    """The results files this build read."""
    return getattr(app, "torchsheet_results", None) or []


def read_results(app: Sphinx) -> None:
    """builder-inited: load the results files once per build (path rule: :mod:`..results`)."""
    option = app.config.torchsheet_results
    if option is None:
        option = app.config.torchsheet_results_file
    paths = results_paths.input_paths(option, docs=Path(app.srcdir), option_base=Path(app.srcdir))
    app.torchsheet_results = results.read_all(paths)


def outdated_when_results_change(app: Sphinx, env: Any, added, changed, removed) -> list[str]:
    """env-get-outdated: new results change every page's status line, so rewrite them all."""
    digest = json.dumps(app.torchsheet_results, sort_keys=True)
    if getattr(env, "torchsheet_results_digest", None) == digest:
        return []
    env.torchsheet_results_digest = digest
    return sorted(env.found_docs)
