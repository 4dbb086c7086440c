"""The copy button's text pastes at the real classic ``python`` prompt, and the linter's model
of that prompt (:func:`classic_prompt_problem`) agrees with the real one.

The forms a new user hit on the training-loop page: a ``>>>`` class body with bare ``...`` lines
between its methods, and a plain block with blank lines inside a loop. One interactive session on
a pseudo-terminal (no torch: a second or two).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from prompt_session import SYNTAX, ClassicPrompt

from torchsheet_harness.checks.block_lint import paste_findings
from torchsheet_harness.sphinx_ext.copy_text import (
    CopySettings,
    classic_prompt_problem,
    copied_text,
    format_copy_text,
    paste_ready,
)

CLASS_BODY = """\
>>> class Toy:
...     def __init__(self, n):
...         self.n = n
...
...     def __len__(self):
...         return self.n
...
>>> len(Toy(3))
3"""

LOOP_WITH_BLANK_LINES = """\
total = 0
for step in range(3):
    total += step

    total *= 2
print("total", total)"""

#: Before: the prompt as configured until now ('...' without a space was not a prompt).
BEFORE = CopySettings(prompt=r">>> |\.\.\. ")
FORMS = {
    "class body with bare ...": (CLASS_BODY, "3"),
    "blank lines inside a loop": (LOOP_WITH_BLANK_LINES, "total 8"),
}


@pytest.fixture(scope="module")
def prompt(tmp_path_factory: pytest.TempPathFactory):
    session = ClassicPrompt(tmp_path_factory.mktemp("prompt"), timeout=30)
    yield session
    session.close()


@pytest.mark.parametrize("form", FORMS)
def test_what_the_button_copied_before_fails_at_the_real_prompt(prompt, form: str) -> None:
    block, _ = FORMS[form]
    before = format_copy_text(block, BEFORE)
    shown = prompt.paste(before)
    assert SYNTAX.search(shown), shown
    assert classic_prompt_problem(before) is not None  # the linter's model agrees


@pytest.mark.parametrize("form", FORMS)
def test_what_the_button_copies_now_runs_at_the_real_prompt(prompt, form: str) -> None:
    block, output = FORMS[form]
    now = copied_text(block)
    shown = prompt.paste(now)
    assert not SYNTAX.search(shown) and "Traceback" not in shown, shown
    assert shown.rstrip().endswith(output), shown
    assert classic_prompt_problem(now) is None
    # In a file the copied code means what the block means.
    source = format_copy_text(block)
    namespace_file: dict = {}
    exec(compile(source, "<file>", "exec"), namespace_file)
    namespace_ready: dict = {}
    exec(compile(now, "<file>", "exec"), namespace_ready)
    assert namespace_file.keys() == namespace_ready.keys()


def test_paste_ready_drops_blank_lines_in_bodies_and_ends_bodies_and_the_text_with_one() -> None:
    assert paste_ready("if x:\n    a = 1\n\n    b = 2\nc = 3\n") == (
        "if x:\n    a = 1\n    b = 2\n\nc = 3\n"
    )
    kept = "x = [\n    1,\n]\ntry:\n    pass\nexcept E:\n    pass\n# note\ny = 1"
    assert paste_ready(kept) == kept.replace("# note\ny", "# note\n\ny") + "\n"
    assert paste_ready("x = 1\n\n\n") == "x = 1\n"  # one line break at the end, for Enter


def test_the_linter_flags_a_block_the_button_cannot_make_pasteable(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        textwrap.dedent('''\
            # Page

            ```python
            def message():
                return """first line
            second line, unindented"""
            ```

            ```python
            >>> class Fine:
            ...     a = 1
            ...
            ...     b = 2
            ...
            ```
            ''')
    )
    findings = paste_findings(page)
    assert len(findings) == 1 and "page.md:3: the copy button's blank-line rule" in findings[0]
