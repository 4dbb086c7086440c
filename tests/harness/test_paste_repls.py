"""What the copy button yields pastes at Python 3.13's default REPL and at IPython's prompt.

The classic prompt is tested on every page by tests/harness/test_copy_paste.py; these are the
prompts most readers paste into today, each on a pseudo-terminal read off a terminal emulator
(tests/support/repl_screen.py), the interpreter being the one running the tests:

- the paste-ready forms (tests/harness/test_paste_ready.py) pasted bracketed (what current terminals
  send) and the REPL's own way (F3 at the 3.13 REPL, ``%cpaste`` at IPython), each with one Enter;
- typed lines (a terminal without bracketed paste): the REPL indents the line after a ``:``
  itself, on top of the pasted spaces, as the site says (docs/verification.md);
- a pasted block runs as one input and shows only its last value, and IPython stops it at its
  first exception, as the site says;
- a set of real pages (loops, with-blocks, exceptions shown, classes), block after block,
  bracketed, and from a terminal without bracketed paste (a block with an indented line the
  REPL's own way, any other typed in): no SyntaxError or IndentationError, no traceback the page
  does not show, and every output line of the page that such a REPL shows (what is printed, and
  the last value of each input: tests/support/pasted_steps.py, ``shown_outputs``).

Run once per CI by ``nox -s paste-repls`` (Python 3.13 with IPython and torch), not in each torch
leg: elsewhere they skip, saying what they need. With TORCHSHEET_PASTE_REPLS=1 (set by that
session) a missing prerequisite fails instead.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest
from built_site import DOCS, build_site
from pasted_steps import page_steps, prompt_problems
from prompt_session import SYNTAX
from test_paste_ready import FORMS, LOOP_WITH_BLANK_LINES

from torchsheet_harness.sphinx_ext.copy_text import copied_text

REPLS = ("python3.13", "ipython")
#: Loops and with-blocks (attributes, autograd), blocks that show an exception (numpy, layout,
#: data), classes and defs (modules, training-loop).
PAGES = (
    "tensors/attributes.md",
    "tensors/numpy.md",
    "tensors/layout.md",
    "training/autograd.md",
    "training/data.md",
    "training/modules.md",
    "training/training-loop.md",
)
BLOCK_TIMEOUT_SECONDS = 120


def missing_prerequisite(name: str) -> str | None:
    """Why the REPL ``name`` cannot be driven here, or None."""
    if importlib.util.find_spec("pyte") is None:
        return "needs pyte (the test extra) to read the screen"
    if name == "python3.13" and sys.version_info < (3, 13):
        return f"needs Python 3.13+ (its default REPL); this is {sys.version.split()[0]}"
    if name == "ipython" and importlib.util.find_spec("IPython") is None:
        return "needs IPython installed"
    return None


@pytest.fixture(params=REPLS)
def repl(request: pytest.FixtureRequest):
    """The REPL's description; skips (fails under nox -s paste-repls) where it cannot run."""
    reason = missing_prerequisite(request.param)
    if reason is not None:
        if os.environ.get("TORCHSHEET_PASTE_REPLS") == "1":
            pytest.fail(f"{request.param}: {reason}")
        pytest.skip(f"{request.param}: {reason}; nox -s paste-repls runs these")
    from repl_screen import IPYTHON, PYTHON_REPL

    return PYTHON_REPL if request.param == "python3.13" else IPYTHON


@pytest.fixture
def screen(repl, tmp_path: Path):
    from repl_screen import ReplScreen

    session = ReplScreen(repl, tmp_path, timeout=BLOCK_TIMEOUT_SECONDS)
    yield session
    session.close()


def as_step(block: str, output: str) -> dict:
    """A form as a page step: a >>> block, or a plain block with its printed output."""
    if block.startswith(">>>"):
        return {"kind": "doctest", "code": block}
    return {"kind": "plain", "code": block, "expected": output + "\n"}


@pytest.mark.parametrize("how", ["bracketed", "own-way"])
@pytest.mark.parametrize("form", FORMS)
def test_a_paste_ready_form_runs_after_one_enter(screen, form: str, how: str) -> None:
    block, output = FORMS[form]
    shown = screen.paste(copied_text(block), how)
    step = as_step(block, output)
    assert not prompt_problems(step, shown, screen.repl.traceback, one_input=True), shown
    assert screen.enters <= 1, f"{screen.enters} Enters after the paste:\n{shown}"


def test_typed_lines_are_indented_again_after_a_colon(screen) -> None:
    """Without bracketed paste the REPL adds its own indentation to the pasted spaces."""
    shown = screen.paste(copied_text(LOOP_WITH_BLANK_LINES), "typed")
    errors = [match[0].strip() for match in SYNTAX.finditer(shown)]
    assert errors == ["IndentationError: unexpected indent"], shown


def test_a_pasted_block_shows_its_last_value_only(screen) -> None:
    shown = screen.paste(copied_text(">>> 6 * 7\n42\n>>> 6 * 8\n48"), "bracketed")
    assert "48" in shown and "42" not in shown, shown  # the code itself is not in ``shown``


GOES_ON_AFTER_AN_EXCEPTION = """\
>>> 1 / 0
Traceback (most recent call last):
    ...
ZeroDivisionError: division by zero
>>> print("after")
after"""


def test_only_ipython_stops_a_pasted_block_at_its_exception(screen) -> None:
    """Why a block ends at the exception it shows (the page linter's rule): the checks see the
    lost output at IPython; the 3.13 REPL runs the statements after it."""
    step = {"kind": "doctest", "code": GOES_ON_AFTER_AN_EXCEPTION}
    shown = screen.paste(copied_text(GOES_ON_AFTER_AN_EXCEPTION), "bracketed")
    problems = prompt_problems(step, shown, screen.repl.traceback, one_input=True)
    if screen.repl.name == "IPython":
        assert problems == ["the terminal did not show these output lines: ['after']"], shown
    else:
        assert problems == [], shown


@pytest.fixture
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built once per run (build_site); function-scoped so that a skip comes first."""
    return build_site(tmp_path_factory.getbasetemp())


def how_to_paste(copied: str, terminal: str) -> str:
    """How a reader following docs/verification.md pastes a block at ``terminal``: without
    bracketed paste, a block with an indented line the REPL's own way, any other typed in."""
    if terminal == "bracketed":
        return "bracketed"
    indented = any(line[:1] in (" ", "\t") for line in copied.splitlines())
    return "own-way" if indented else "typed"


@pytest.mark.parametrize("terminal", ["bracketed", "typed"])
@pytest.mark.parametrize("page", PAGES)
def test_a_page_pastes_block_after_block(screen, page: str, terminal: str, site: Path) -> None:
    problems = []
    for step in page_steps(DOCS / page, site):
        how = how_to_paste(step["copied"], terminal)
        shown = screen.paste(step["copied"], how)
        found = prompt_problems(step, shown, screen.repl.traceback, one_input=how != "typed")
        if found:
            problems.append(
                f"{step['name']}: pasted {how} at {screen.repl.name}: " + "; ".join(found)
                + f"\n--- pasted ---\n{step['copied']}\n--- the screen showed ---\n"
                + shown[-3000:]
            )  # fmt: skip
    assert not problems, "\n\n".join(problems)
