"""Sphinx extension: what the tests know about a page, shown on the page.

It reads the doctree (node classes, the ``%`` comments) and the results files (through
:mod:`torchsheet_harness.results`), and lexes no page: whether a page's markers hold is
checked when the page is collected (:mod:`torchsheet_harness.pages.markers`).

- :mod:`.reading`: the one ``doctree-read`` pass: markers, purpose, badges, status line.
- :mod:`.store`: per page what it recorded, per build the results, views and reading order.
- :mod:`.rendering`: the one pattern: a placeholder at read time, replaced by docutils nodes
  when the page is written (``doctree-resolved``).
- :mod:`.verdicts` (merged per page and block, no Sphinx) and :mod:`.status_text` (its words).
- :mod:`.badges`, :mod:`.status`: above each block and under each title.
- :mod:`.quick_reference`, :mod:`.pitfalls_index`, :mod:`.errors_index` (with
  :mod:`.evidence`): the three indexes built from the markers.
- :mod:`.overview`: ``{page-overview}`` and the meta description; :mod:`.run_times`:
  ``{run-times}``; :mod:`.environments`: ``{verified-environments}``.
- :mod:`.search` (with ``search.js``): the search finds an error's entry from a pasted line or
  traceback (any query word listed, rarer words weighing more); :mod:`.copy_text`: the copy
  button's text also pastes at the classic ``python`` prompt.

``extensions = [..., "torchsheet_harness.sphinx_ext"]``; ``torchsheet_results`` names the
results files and folders to read, separated by ``os.pathsep`` (``torchsheet_results_file`` is
the older name; path rule: :mod:`torchsheet_harness.results_paths`); ``torchsheet_matrix`` the
torch versions tested; ``torchsheet_errors_evidence`` the errors evidence file.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx

from . import (
    copy_text,
    environments,
    errors_index,
    evidence,
    overview,
    pitfalls_index,
    quick_reference,
    reading,
    rendering,
    run_times,
    search,
    store,
)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("torchsheet_results", None, "env", types=[str, type(None)])
    app.add_config_value("torchsheet_results_file", None, "env", types=[str, type(None)])
    app.add_config_value("torchsheet_matrix", (), "env", types=[tuple, list])
    app.add_config_value("torchsheet_errors_evidence", None, "env", types=[str, type(None)])
    app.add_directive("page-overview", overview.PageOverview)
    app.add_directive("quick-reference", quick_reference.QuickReference)
    app.add_directive("pitfalls", pitfalls_index.Pitfalls)
    app.add_directive("errors", errors_index.Errors)
    app.add_role("errors-count", errors_index.errors_count_role)
    app.add_directive("run-times", run_times.RunTimes)
    app.add_directive("verified-environments", environments.VerifiedEnvironments)
    # After sphinx-copybutton's own config-inited (priority 500): the copied text pastes at the
    # classic prompt too.
    app.connect("config-inited", copy_text.wrap_copybutton, priority=900)
    app.connect("builder-inited", store.read_results)
    app.connect("env-purge-doc", store.purge)
    app.connect("env-merge-info", store.merge)
    app.connect("env-get-outdated", store.reread_warned)
    app.connect("env-get-updated", store.rewritten)
    app.connect("doctree-read", reading.read_page)
    app.connect("doctree-read", overview.add_description)
    app.connect("env-check-consistency", quick_reference.check_sections)
    app.connect("env-check-consistency", evidence.check_evidence)
    app.connect("doctree-resolved", rendering.render_placeholders)
    search.register(app)
    return {"version": "2", "parallel_read_safe": True, "parallel_write_safe": True}
