"""Sphinx extension: what the tests know about a page, shown on the page.

- :mod:`.badges`: a badge above each block that needs hardware or a launcher, or is not run,
  with where it was verified when that differs between environments (or it failed anywhere).
- :mod:`.verdicts`: the results files merged per page and block (no Sphinx in it).
- :mod:`.status`: the line under each page's purpose sentence: the environments that verified it.
- :mod:`.overview`: ``{page-overview}`` and the purpose sentence as the meta description.
- :mod:`.run_times`: ``{run-times}``, per page and environment the time taken, slowest blocks.
- :mod:`.quick_reference` (with :mod:`.sheet_markers`, :mod:`.sheet_store`,
  :mod:`.pitfalls_index`): ``{quick-reference}`` and ``{pitfalls}``, built from the blocks marked
  ``% quickref:`` and ``% pitfall:`` on the pages.
- :mod:`.errors_index` (with :mod:`.error_markers`): ``{errors}``, every message a block marked
  ``% error:`` or ``% warning:`` shows torch raising, sorted, linked to its section.
- :mod:`.search` (with ``search.js``): the search finds an error's entry from a pasted line or
  traceback: it lists the pages that hold any query word, ranked by the words they hold, rarer
  words weighing more, and leaves out words that start with a digit (a pasted message's sizes).
- :mod:`.copy_text`: the copy button's text also pastes at the classic ``python`` prompt.
- :mod:`.environments`: ``{verified-environments}``, the torch matrix (``torchsheet_matrix``)
  and when each environment's run verified the pages.

``extensions = [..., "torchsheet_harness.sphinx_ext"]``; ``torchsheet_results`` names the
results files and folders to read, separated by ``os.pathsep`` (``torchsheet_results_file`` is
the older name; path rule: :mod:`torchsheet_harness.results`).
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from . import (
    badges,
    copy_text,
    environments,
    errors_index,
    overview,
    quick_reference,
    run_times,
    search,
    status,
)


def skip_node(self: Any, node: nodes.Element) -> None:
    raise nodes.SkipNode


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("torchsheet_results", None, "env", types=[str, type(None)])
    app.add_config_value("torchsheet_results_file", None, "env", types=[str, type(None)])
    app.add_config_value("torchsheet_matrix", (), "env", types=[tuple, list])
    no_html = {builder: (skip_node, None) for builder in ("latex", "text", "man", "texinfo")}
    app.add_node(badges.requirement_badge, html=(badges.visit_badge_html, None), **no_html)
    app.add_node(status.page_status, html=(status.visit_status_html, None), **no_html)
    app.add_node(overview.page_overview, html=(overview.visit_overview_html, None), **no_html)
    app.add_directive("page-overview", overview.PageOverview)
    app.add_directive("run-times", run_times.RunTimes)
    html_only = (environments.visit_html, None)
    app.add_node(environments.verified_environments, html=html_only, **no_html)
    app.add_directive("verified-environments", environments.VerifiedEnvironments)
    # After sphinx-copybutton's own config-inited (priority 500): the copied text pastes at the
    # classic prompt too.
    app.connect("config-inited", copy_text.wrap_copybutton, priority=900)
    app.connect("builder-inited", status.read_results)
    app.connect("env-get-outdated", status.outdated_when_results_change)
    # In this order: the purpose is read before the status line goes in after it.
    app.connect("doctree-read", overview.record_page)
    app.connect("doctree-read", badges.mark_blocks)
    app.connect("doctree-read", status.insert_status)
    app.connect("env-purge-doc", overview.purge_page)
    app.connect("env-get-outdated", badges.reread_pages_that_warned)
    app.connect("env-purge-doc", badges.purge_warned)
    app.connect("env-merge-info", badges.merge_warned)
    app.connect("env-merge-info", overview.merge_pages)
    app.connect("html-page-context", overview.add_meta_description)
    quick_reference.register(app, no_html)
    errors_index.register(app, no_html)
    search.register(app)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
