"""The copy checks every executed Python block gets (torchsheet_harness/pages/copy_text.py): the
blocks of the page the REPL tests paste (tests/support/pasted_page.md) pass, and each way a copy
can go wrong is named with page and line. In-process: no build, no terminal."""

from pathlib import Path

import pytest

from torchsheet_harness.pages import copy_text
from torchsheet_harness.pages.copy_text import copy_problems, paste_ready
from torchsheet_harness.pages.page import read_page

PAGE = Path(__file__).parents[1] / "support" / "pasted_page.md"
BLOCKS = [block.code for block in read_page(PAGE).blocks if block.argument == "python"]
CLASS_BODY, LOOP_WITH_BLANK_LINES = BLOCKS[:2]
BODY_THEN_TOP_LEVEL = 'for step in range(2):\n    pass\nprint("done")\n'
STRING_IN_BODY = 'def text():\n    return """first\n\n    second"""\n'


@pytest.mark.parametrize("block", BLOCKS)
def test_the_pasted_page_s_blocks_copy_right(block: str) -> None:
    assert copy_problems(block, "docs/page.md:6") == []


def test_paste_ready_drops_blank_lines_in_bodies_and_ends_bodies_and_the_text_with_one() -> None:
    assert paste_ready("if x:\n    a = 1\n\n    b = 2\nc = 3\n") == (
        "if x:\n    a = 1\n    b = 2\n\nc = 3\n"
    )
    kept = "x = [\n    1,\n]\ntry:\n    pass\nexcept E:\n    pass\n# note\ny = 1"
    assert paste_ready(kept) == kept.replace("# note\ny", "# note\n\ny") + "\n"
    assert paste_ready("x = 1\n\n\n") == "x = 1\n"  # one line break at the end, for Enter


def test_a_copy_that_is_not_the_statements_is_named(monkeypatch) -> None:
    (string,) = copy_problems(STRING_IN_BODY, "docs/page.md:6")
    assert string.startswith("docs/page.md:6: the copy button's blank-line rule (pasteReady)")
    # A port (or a copybutton) that drops a block's last line.
    format_copy_text = copy_text.format_copy_text
    monkeypatch.setattr(
        copy_text, "format_copy_text", lambda text: format_copy_text(text).rsplit("\n", 1)[0]
    )
    (doctest,) = copy_problems(CLASS_BODY, "docs/page.md:6")
    assert doctest.startswith("docs/page.md:6: the copy button yields\nclass Counter:")
    assert "but the block's statements are\nclass Counter:\n" in doctest
    assert doctest.endswith("        return self.n\nlen(Counter(3))")
    (plain,) = copy_problems(BODY_THEN_TOP_LEVEL, "docs/page.md:20")
    assert plain.startswith("docs/page.md:20: the copy button yields\n")
    assert plain.endswith(f"but the block's code is\n{BODY_THEN_TOP_LEVEL.rstrip()}")


@pytest.mark.parametrize(
    ("block", "error"),
    [
        (LOOP_WITH_BLANK_LINES, "line 5 of the copied code, 'total *= 2': IndentationError"),
        (CLASS_BODY, "line 5 of the copied code, 'def __len__(self):': IndentationError"),
        (BODY_THEN_TOP_LEVEL, "line 3 of the copied code, 'print(\"done\")': SyntaxError"),
    ],
)
def test_code_the_classic_prompt_rejects_is_named(monkeypatch, block: str, error: str) -> None:
    """copybutton's text without pasteReady: the statements, but not pasteable there."""
    monkeypatch.setattr(copy_text, "paste_ready", lambda text: text + "\n")
    (problem,) = copy_problems(block, "docs/page.md:6")
    assert problem.startswith("docs/page.md:6: the copy button's code fails at the classic")
    assert error in problem


def test_collecting_the_page_names_the_page_and_line_of_a_block(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(f"# Page\n\n```python\n{STRING_IN_BODY}```\n\n```python\n{CLASS_BODY}```\n")
    problems = read_page(page).problems
    assert len(problems) == 1 and "page.md:3: the copy button's blank-line rule" in problems[0]
