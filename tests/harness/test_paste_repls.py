"""What the copy button yields pastes at the classic ``python`` prompt, Python 3.13's REPL and
IPython, on a real terminal: one page per REPL, block after block.

Every page's copy is checked without a terminal at collection (it is exactly the block's
statements, and the classic prompt's rules accept it: torchsheet_harness/pages/copy_text.py), and
the page run executes each block as the prompt does. What only a terminal shows is tested here,
each REPL on a pseudo-terminal read off a terminal emulator (tests/support/repl_screen.py), the
interpreter being the one running the tests, on one page (tests/support/pasted_page.py) holding
the forms that are hard to paste: nested blocks, a decorator, a shown exception, blank lines
inside a block, a ``>>>`` class body with bare ``...`` lines between its methods, lines that
continue the statement above. Pasted from the built page's copy buttons, bracketed (what current
terminals send) and without bracketed paste (the classic prompt always gets typed lines; the
newer REPLs get a block with an indented line their own way, F3 or ``%cpaste``, any other typed),
each block runs after one Enter, with no SyntaxError, no traceback the page does not show, and
the page's outputs on the screen (at the 3.13 REPL and IPython a pasted block is one input and
shows its last value only). Also what the site says of those REPLs: typed lines are indented
again after a ``:``; a pasted block shows its last value only; IPython stops a block at its
first exception.

The page is planted, not one of the site's: it needs no torch, so ``nox -s paste-repls`` installs
no torch on Python 3.13 (PyPI's is the CUDA build, 3 GB; with it the session's venv took 7.5 min
here to build, without it under 2), and its forms are there by construction, not by a page's
current content. What torch prints is the page run's to check; pasting adds nothing to it.

The classic prompt runs in ``nox -s harness-tests``; Python 3.13's REPL and IPython in
``nox -s paste-repls`` (Python 3.13 with IPython), once per CI. Elsewhere those skip, saying what
they need; with TORCHSHEET_PASTE_REPLS=1 (set by that session) a missing one fails instead.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest
from built_site import copy_settings
from pasted_page import CLASS_BODY, LOOP_WITH_BLANK_LINES, built_page, paste_problems, pasted_blocks
from repl_screen import CLASSIC, IPYTHON, PYTHON_REPL, ReplScreen

from torchsheet_harness.pages.copy_text import (
    PAGE_SETTINGS,
    classic_prompt_problem,
    copied_text,
    format_copy_text,
)

REPLS = {"classic": CLASSIC, "python3.13": PYTHON_REPL, "ipython": IPYTHON}
NEWER = ("python3.13", "ipython")
BLOCK_TIMEOUT_SECONDS = 60


def missing_prerequisite(name: str) -> str | None:
    """Why the REPL ``name`` cannot be driven here, or None."""
    if name == "python3.13" and sys.version_info < (3, 13):
        return f"needs Python 3.13+ (its default REPL); this is {sys.version.split()[0]}"
    if name == "ipython" and importlib.util.find_spec("IPython") is None:
        return "needs IPython installed"
    return None


@pytest.fixture
def screen(request: pytest.FixtureRequest, tmp_path: Path):
    """A fresh REPL (the test's ``repl`` parameter); skips (fails under nox -s paste-repls)
    where it cannot run."""
    name = request.node.callspec.params["repl"]
    reason = missing_prerequisite(name)
    if reason is not None:
        if os.environ.get("TORCHSHEET_PASTE_REPLS") == "1":
            pytest.fail(f"{name}: {reason}")
        pytest.skip(f"{name}: {reason}; nox -s paste-repls runs these")
    session = ReplScreen(REPLS[name], tmp_path, timeout=BLOCK_TIMEOUT_SECONDS)
    yield session
    session.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_page(tmp_path_factory.mktemp("pasted-page"))


def test_the_built_copy_button_has_the_settings_the_checks_use(site: Path) -> None:
    assert copy_settings(site) == PAGE_SETTINGS


@pytest.mark.parametrize(
    ("repl", "terminal"),
    [("classic", "typed"), *((name, t) for name in NEWER for t in ("bracketed", "typed"))],
)
def test_the_page_pastes_block_after_block(screen, repl: str, terminal: str, site: Path) -> None:
    problems = []
    for step in pasted_blocks(site):
        indented = any(line[:1] in (" ", "\t") for line in step["copied"].splitlines())
        how = "own-way" if terminal == "typed" and indented and repl != "classic" else terminal
        shown = screen.paste(step["copied"], how)
        one_input = repl != "classic" and how != "typed"  # typed: a statement is an input
        found = paste_problems(step, shown, screen.repl.traceback, one_input)
        if screen.enters > 1:
            found.append(f"{screen.enters} Enters after the paste")
        if found:
            problems.append(
                f"pasted {how} at {screen.repl.name}: " + "; ".join(found)
                + f"\n--- pasted ---\n{step['copied']}--- the screen showed ---\n{shown[-3000:]}"
            )  # fmt: skip
    assert not problems, "\n\n".join(problems)


@pytest.mark.parametrize("repl", ["classic"])
@pytest.mark.parametrize("block", [CLASS_BODY, LOOP_WITH_BLANK_LINES])
def test_without_paste_ready_the_classic_prompt_rejects_the_block(screen, repl, block) -> None:
    """copybutton's text alone fails at the real prompt, as the checks' model of it says."""
    without = format_copy_text(block) + "\n"
    shown = screen.paste(without, "typed")
    assert "Error: " in shown and ("SyntaxError" in shown or "IndentationError" in shown), shown
    assert classic_prompt_problem(without) is not None


@pytest.mark.parametrize("repl", NEWER)
def test_typed_lines_are_indented_again_after_a_colon(screen, repl: str) -> None:
    """Without bracketed paste the REPL adds its own indentation to the pasted spaces."""
    shown = screen.paste(copied_text(LOOP_WITH_BLANK_LINES), "typed")
    assert "IndentationError: unexpected indent" in shown, shown


@pytest.mark.parametrize("repl", REPLS)
def test_a_pasted_block_shows_its_last_value_only_at_the_newer_repls(screen, repl: str) -> None:
    how = "typed" if repl == "classic" else "bracketed"
    shown = screen.paste(copied_text(">>> 6 * 7\n42\n>>> 6 * 8\n48"), how)
    assert "48" in shown and ("42" in shown) == (repl == "classic"), shown  # code not in shown


@pytest.mark.parametrize("repl", REPLS)
def test_only_ipython_stops_a_pasted_block_at_its_exception(screen, repl: str) -> None:
    """Why a block on the site ends at the exception it shows (the page linter's rule)."""
    how = "typed" if repl == "classic" else "bracketed"
    shown = screen.paste(copied_text('>>> 1 / 0\n>>> print("after")\nafter'), how)
    assert "ZeroDivisionError" in shown and ("after" in shown) == (repl != "ipython"), shown
