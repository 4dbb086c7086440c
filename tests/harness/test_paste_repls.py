"""What the copy button yields pastes at the classic ``python`` prompt, Python 3.13's REPL and
IPython on a pseudo-terminal read through a terminal emulator (repl_screen.py): one planted page
of the forms hard to paste (tests/support/pasted_page.md: no torch, so ``nox -s paste-repls``
installs none), block after block, bracketed and typed; and what the site says of those REPLs.
The classic prompt runs in ``nox -s harness-tests``; the others, in ``nox -s paste-repls``,
where a missing one fails (elsewhere they skip)."""

import importlib.util
import os
import sys
from pathlib import Path

import pytest
from built_site import copy_settings
from pasted_page import built_page, paste_problems, pasted_blocks
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
@pytest.mark.parametrize("block", [0, 1], ids=["class-body", "loop"])
def test_without_paste_ready_the_classic_prompt_rejects_the_block(screen, repl, block, site):
    """copybutton's text alone fails at the real prompt, as the checks' model of it says."""
    without = format_copy_text(pasted_blocks(site)[block]["code"]) + "\n"
    shown = screen.paste(without, "typed")
    assert "Error: " in shown and ("SyntaxError" in shown or "IndentationError" in shown), shown
    assert classic_prompt_problem(without) is not None


@pytest.mark.parametrize("repl", NEWER)
def test_typed_lines_are_indented_again_after_a_colon(screen, repl: str, site: Path) -> None:
    """Without bracketed paste the REPL adds its own indentation to the pasted spaces."""
    shown = screen.paste(pasted_blocks(site)[1]["copied"], "typed")
    assert "IndentationError: unexpected indent" in shown, shown


@pytest.mark.parametrize("repl", REPLS)
def test_the_newer_repls_show_only_a_blocks_last_value_and_ipython_stops_at_an_exception(
    screen, repl: str
) -> None:
    """Why a block on the site ends at the exception it shows (the page linter's rule)."""
    how = "typed" if repl == "classic" else "bracketed"
    shown = screen.paste(copied_text(">>> 6 * 7\n42\n>>> 6 * 8\n48"), how)
    assert "48" in shown and ("42" in shown) == (repl == "classic"), shown  # code not in shown
    shown = screen.paste(copied_text('>>> 1 / 0\n>>> print("after")\nafter'), how)
    assert "ZeroDivisionError" in shown and ("after" in shown) == (repl != "ipython"), shown
