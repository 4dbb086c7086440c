"""What a reader pastes from one built page, block after block, and what the page shows it print.

Test support for tests/harness/test_copy_paste.py (a fresh classic prompt) and
tests/harness/test_paste_repls.py (Python 3.13's REPL, IPython): the page's CPU Python blocks, in
page order, each as the copy button yields it (:mod:`torchsheet_harness.sphinx_ext.copy_text`) and
checked to be exactly the block's statements (:func:`copy_problem`), and the looser checks the
REPLs share (:func:`prompt_problems`: the page's output lines on the terminal; the classic prompt's
exact ones are tests/support/prompt_outputs.py).
"""

from __future__ import annotations

import ast
import doctest
from pathlib import Path

import pytest
from built_site import DOCS, HtmlBlock, copy_settings, html_blocks
from prompt_session import SYNTAX

from torchsheet_harness.sphinx_ext.copy_text import copied_text


def pasted_blocks(blocks: list[HtmlBlock]) -> list[tuple[HtmlBlock, HtmlBlock | None]]:
    """The blocks a reader pastes into one interpreter, each with the output block after it."""
    chosen = []
    for index, block in enumerate(blocks):
        if block.language != "python" or block.needs or block.is_output:
            continue
        if block.classes & {"ts-not-run", "ts-script"}:
            continue
        following = blocks[index + 1] if index + 1 < len(blocks) else None
        chosen.append((block, following if following and following.is_output else None))
    return chosen


def source_lines(blocks: list[HtmlBlock], source: Path) -> dict[int, int]:
    """Block index → line of its first line in the page source, found in page order."""
    lines = source.read_text(encoding="utf-8").splitlines()
    found, cursor = {}, 0
    for block in blocks:
        first = next((line.strip() for line in block.text.splitlines() if line.strip()), "")
        for number in range(cursor, len(lines)):
            if lines[number].strip() == first:
                found[block.index], cursor = number + 1, number + 1
                break
    return found


def statements_of(doctest_text: str) -> list[str]:
    """The non-empty source lines of a doctest block's examples, as doctest runs them."""
    examples = doctest.DocTestParser().get_examples(doctest_text)
    return [line for ex in examples for line in ex.source.splitlines() if line.strip()]


def same_statements(copied: str, code: str) -> bool:
    """Whether ``copied`` parses to the same statements as ``code`` (``ast.dump``): the blank
    lines the copy button drops or adds changed nothing, not even a string's text."""
    try:
        return ast.dump(ast.parse(copied)) == ast.dump(ast.parse(code))
    except SyntaxError:
        return False


def copy_problem(block_text: str, copied: str) -> str | None:
    """Why ``copied`` is not exactly the statements of the block whose text is ``block_text``.

    A ``>>>`` block: its non-empty lines must be the examples' source lines, in order, and parse
    to the same statements as the examples' sources; a plain block: parse as its code does.
    """
    if block_text.startswith(">>>"):
        statements = statements_of(block_text)
        examples = doctest.DocTestParser().get_examples(block_text)
        pasted = [line for line in copied.splitlines() if line.strip()]
        if pasted == statements and same_statements(copied, "".join(e.source for e in examples)):
            return None
        return "the block's statements are\n" + "\n".join(statements)
    if same_statements(copied, block_text):
        return None
    return f"the block's code is\n{block_text}"


def page_steps(source: Path, site: Path, docs: Path = DOCS) -> list[dict]:
    """What a reader pastes from ``source``'s built page, block after block, in page order.

    Each step: kind ('doctest' or 'plain'), name (page:line and section), line (the block's
    first line in the page source, or None), code (a doctest block's text; a plain block's
    copied text), copied (what the button yields), expected (a plain block's output block).
    ``site`` is the site built from ``docs``. Skips the test when the page has no CPU Python
    block, and fails it when a block does not copy to exactly its statements
    (:func:`copy_problem`).
    """
    settings = copy_settings(site)
    page = site / source.relative_to(docs).with_suffix(".html")
    blocks = html_blocks(page)
    chosen = pasted_blocks(blocks)
    if not chosen:
        pytest.skip("no CPU Python block on this page")
    lines = source_lines(blocks, source)
    steps, problems = [], []
    for block, output in chosen:
        line = lines.get(block.index)
        name = f"{source.relative_to(docs.parent)}:{line or '?'} (§ {block.section})"
        copied = copied_text(block.text, settings)
        problem = copy_problem(block.text, copied)
        if problem is not None:
            problems.append(f"{name}: the copy button yields\n{copied}\nbut {problem}")
        if block.text.startswith(">>>"):
            steps.append(
                {"kind": "doctest", "name": name, "line": line, "code": block.text,
                 "copied": copied}
            )  # fmt: skip
        else:
            expected = output.text if output is not None else None
            steps.append(
                {"kind": "plain", "name": name, "line": line, "code": copied, "copied": copied,
                 "expected": expected}
            )  # fmt: skip
    assert not problems, "\n\n".join(problems)
    return steps


def shown_outputs(step: dict, one_input: bool = False) -> list[str]:
    """The lines of what the page shows the block print (and, for >>>, the exceptions).

    With ``one_input``: what a REPL that runs a pasted block as one input shows of them (Python
    3.13's REPL, IPython, Jupyter): the value of a bare expression only when it is the block's
    last statement; what the other statements print (``print``, a loop, an exception) all the
    same.
    """
    if step["kind"] == "doctest":
        examples = doctest.DocTestParser().get_examples(step["code"])
        last = len(examples) - 1
        shown = "".join(
            example.want
            for index, example in enumerate(examples)
            if not one_input or index == last or not echoes_a_value(example.source)
        )
    else:
        shown = step["expected"] or ""
    return [" ".join(line.split()) for line in shown.splitlines() if line.strip()]


def echoes_a_value(source: str) -> bool:
    """Whether ``source`` is one bare expression (not a ``print``): its output is its value."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        return False
    call = tree.body[0].value
    is_print = isinstance(call, ast.Call) and getattr(call.func, "id", None) == "print"
    return not is_print


def expected_tracebacks(step: dict) -> int:
    """The tracebacks a doctest block shows: one per example that raises, and any its message
    carries (a DataLoader worker's "Original Traceback (most recent call last):")."""
    if step["kind"] != "doctest":
        return 0
    examples = doctest.DocTestParser().get_examples(step["code"])
    inner = "Traceback (most recent call last):"
    return sum(1 + ex.exc_msg.count(inner) for ex in examples if ex.exc_msg is not None)


def prompt_problems(step: dict, shown: str, traceback: str, one_input: bool = False) -> list[str]:
    """What is wrong with what a prompt showed for one pasted step.

    A SyntaxError or IndentationError; a traceback (its first line is ``traceback``) the page
    does not show; a line of the page's output (one without '...') that is not on the terminal
    (of those the prompt shows: :func:`shown_outputs`).
    """
    errors = [match[0].strip() for match in SYNTAX.finditer(shown)]
    extra = shown.count(traceback) - expected_tracebacks(step)
    if extra > 0:
        errors.append(f"{extra} traceback(s) the page does not show")
    flat = " ".join(shown.split())
    missing = [
        line
        for line in shown_outputs(step, one_input)
        if "..." not in line and line not in flat and not line.startswith("Traceback")
    ]
    if missing:
        errors.append(f"the terminal did not show these output lines: {missing}")
    return errors
