"""Which side of the suite a run takes: the sheet on one torch, or the harness once.

``--torchsheet-side=sheet`` (``nox -s docs-tests``, on every torch leg) keeps what verifies the
sheet on that torch: the pages, the snippets, and the test files whose verdict can change with
the torch version (they run a page's or a snippet's code, or lean on torch's own behaviour).
``--torchsheet-side=harness`` (``nox -s harness-tests``, once per CI run, on the default torch)
keeps the rest: the harness's tests of its own behaviour on planted projects, and the checks of
the sheet's text, site and project files that run no torch. Without the option a run keeps
everything (a bare ``pytest``).

The rule, applied to every file of ``tests/`` in :data:`SHEET` and :data:`HARNESS` (each with
why): a file is on the sheet side when a newer torch could change its verdict on what every leg
runs. A check that runs on the default torch only (the GPU-host mode, ``nox -s gpu-host``) is
tested on that torch, with the harness. A file in
neither table runs on the sheet side (every leg: never left out), and ``tests/test_sides.py``
fails until it is placed. Pages are on the sheet side.
"""

from __future__ import annotations

import pytest

SIDES = {
    "sheet": "verifies the sheet on this torch: run on every torch leg (nox -s docs-tests)",
    "harness": "tests the harness, or the sheet's text and site, with no torch-dependent "
    "verdict: run once per CI (nox -s harness-tests)",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("torchsheet").addoption(
        "--torchsheet-side",
        choices=sorted(SIDES),
        default=None,
        help="keep only one side of the suite: 'sheet' (pages, snippets, torch-dependent "
        "checks; every torch leg) or 'harness' (the harness's own tests; once). Default: both",
    )


SHEET = {
    "tests/test_deprecations.py": "which calls warn as deprecated is torch's, per version",
    "tests/test_dcp_reshard_rerun.py": "runs the DCP snippet twice in one folder under torchrun",
    "tests/test_distributed_eval.py": "runs the DDP snippets' evaluation under torchrun",
    "tests/test_multinode.py": "runs the launching page's commands with real torchrun agents",
    "tests/test_page_isolation.py": "the global torch state a page can change, per version",
    "tests/test_rerun_same_dir.py": "runs the process-groups page's TCPStore block twice",
    "tests/test_snippet_backend.py": "runs the snippets' backend choice against torch.cuda",
    "tests/test_static_check.py": "GPU blocks' and snippets' names, calls and deprecations, "
    "against this torch",
}
HARNESS = {
    "tests/test_audit.py": "which blocks of the pages' text run: no torch",
    "tests/test_block_lint.py": "the page linter on planted pages",
    "tests/test_browser.py": "the built site in Chromium",
    "tests/test_ci_sessions.py": "CI's session runner and venv builder, with a stand-in nox",
    "tests/test_copy_paste.py": "the copy text at a fresh prompt: the pages' code is the same on "
    "every leg, and its outputs are verified on every leg by the pages themselves",
    "tests/test_copy_paste_faults.py": "the copy-paste test's checks on planted pages",
    "tests/test_documented_commands.py": "the manuals' commands against the noxfile and pytest",
    "tests/test_error_markers.py": "error and warning markers against the shown output, planted",
    "tests/test_file_reuse.py": "--torchsheet-reuse on a planted sheet-side test file",
    "tests/test_error_search.py": "the site search in Chromium finds each indexed message",
    "tests/test_gpu_blocks.py": "GPU blocks' names, read statically",
    "tests/test_gpu_host.py": "the GPU-host check on planted pages; the check itself runs once, "
    "on the default torch (nox -s gpu-host), so its test runs with it",
    "tests/test_gpu_selection.py": "-m gpu selection and skips on planted pages",
    "tests/test_harness_faults.py": "planted faults caught at page and line",
    "tests/test_html.py": "the built site's HTML",
    "tests/test_nox_sessions.py": "the noxfile's sessions with a stand-in Session",
    "tests/test_page_parser.py": "the page parser in-process",
    "tests/test_paste_repls.py": "Python 3.13's REPL and IPython, in nox -s paste-repls only",
    "tests/test_paste_ready.py": "the copy button's forms at the classic prompt",
    "tests/test_pdf.py": "the quick reference printed by Chromium",
    "tests/test_project_files.py": "licence, notice, changelog, CI files",
    "tests/test_readme_install.py": "the README's install line with an externally managed Python",
    "tests/test_results_file.py": "the results files' format and merging, on planted projects",
    "tests/test_schedule.py": "the xdist order",
    "tests/test_reuse.py": "--torchsheet-reuse on planted projects",
    "tests/test_run_times.py": "the run-times table and the slow-block line, planted",
    "tests/test_sheet_checks.py": "the build refuses bad excerpts and unlisted traps",
    "tests/test_sheet_markers.py": "quick-reference and pitfall markers in the build",
    "tests/test_sides.py": "this table",
    "tests/test_single_page.py": "what pytest docs/x.md reports, on planted pages",
    "tests/test_slurm.py": "the private Slurm cluster's safety",
    "tests/test_torchrun_launcher.py": "the launcher's timeouts and process clean-up",
    "tests/test_verified_environments.py": "the matrix table built from planted results",
    "tests/test_update_outputs.py": "--update-outputs on planted pages",
}


def side_of(item: pytest.Item) -> str:
    """'harness' for a test of a file in :data:`HARNESS`, else 'sheet'."""
    path = item.nodeid.split("::", 1)[0]
    return "harness" if path in HARNESS else "sheet"


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    side = config.getoption("torchsheet_side")
    if side is None:
        return
    kept = [item for item in items if side_of(item) == side]
    dropped = [item for item in items if side_of(item) != side]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
