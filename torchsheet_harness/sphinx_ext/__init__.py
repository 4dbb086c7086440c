"""Sphinx extension: what the tests know about a page, shown on the page. It reads the doctree
and the results files, and lexes no page. Its modules: MAINTAINING.md, "Where the harness lives"."""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx

from . import (
    changes,
    copy_text,
    downloads,
    errors_index,
    quick_reference,
    reading,
    rendering,
    run_times,
    search,
    status,
    store,
)
from .rendering import directive


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("torchsheet_results", None, "env", types=[str, type(None)])
    app.add_config_value("torchsheet_results_file", None, "env", types=[str, type(None)])
    app.add_config_value("torchsheet_matrix", (), "env", types=[tuple, list])
    app.add_config_value("torchsheet_errors_evidence", None, "env", types=[str, type(None)])
    # Where the notebooks and twins link to, and where the notebooks are published for Colab and
    # Kaggle (MAINTAINING.md, "Publishing the notebooks"); unset: no such buttons.
    app.add_config_value("torchsheet_site_url", "", "html", types=[str])
    app.add_config_value("torchsheet_notebooks_repo", "", "html", types=[str])
    app.add_config_value("torchsheet_notebooks_branch", "notebooks", "html", types=[str])
    app.add_config_value("torchsheet_notebooks_path", "", "html", types=[str])
    app.add_directive("page-overview", directive(status.page_overview))
    app.add_directive("quick-reference", quick_reference.QuickReference)
    app.add_directive("pitfalls", directive(quick_reference.pitfalls_index))
    app.add_directive("errors", directive(errors_index.errors_index))
    app.add_role("errors-count", errors_index.errors_count_role)
    app.add_directive("run-times", directive(run_times.run_times))
    app.add_directive("verified-environments", directive(run_times.verified_environments))
    app.add_directive("what-changed", directive(changes.what_changed))
    # After sphinx-copybutton's own config-inited (priority 500): the copied text pastes at the
    # classic prompt too.
    app.connect("config-inited", copy_text.wrap_copybutton, priority=900)
    app.connect("builder-inited", store.read_results)
    app.connect("env-purge-doc", store.purge)
    app.connect("env-merge-info", store.merge)
    app.connect("env-get-outdated", store.reread_warned)
    app.connect("env-get-updated", store.rewritten)
    app.connect("doctree-read", reading.read_page_doctree)
    app.connect("env-check-consistency", quick_reference.check_sections)
    app.connect("env-check-consistency", errors_index.check_evidence)
    app.connect("doctree-resolved", rendering.render_placeholders)
    app.connect("builder-inited", search.copy_script)
    app.connect("html-page-context", search.add_script)
    app.connect("builder-inited", downloads.copy_script)
    app.add_js_file(downloads.STATIC_NAME, loading_method="defer")
    app.connect("html-page-context", downloads.write_exports)
    app.connect("build-finished", downloads.write_indexes)
    return {"version": "2", "parallel_read_safe": True, "parallel_write_safe": True}
