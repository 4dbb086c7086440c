"""The page the REPL tests paste (pasted_page.md), built with the site's conf.py; its blocks as
the built copy buttons yield them, and what a REPL showed for one checked against it."""

import ast
import doctest
import shutil
from io import StringIO
from pathlib import Path

from built_site import DOCS, copy_settings, html_blocks
from sphinx.testing.util import SphinxTestApp

from torchsheet_harness.pages.copy_text import copied_text
from torchsheet_harness.run.outputs import matches

PAGE = Path(__file__).with_suffix(".md")
SYNTAX_ERRORS = ("SyntaxError: ", "IndentationError: ", "TabError: ")


def built_page(tmp_path: Path) -> Path:
    """The site of :data:`PAGE` alone, built as docs/ is (its conf.py and _static), sphinx.testing
    in-process; fails on a warning. Returns the HTML folder."""
    source = tmp_path / "src"
    shutil.copytree(DOCS / "_static", source / "_static")
    shutil.copy(DOCS / "conf.py", source)
    (source / "index.md").write_text("# Planted\n\nPlanted.\n\n```{toctree}\npage\n```\n")
    shutil.copy(PAGE, source / "page.md")
    warnings = StringIO()
    overrides = {"torchsheet_results_file": str(tmp_path / "no-results.json")}
    app = SphinxTestApp(
        srcdir=source, builddir=tmp_path / "build", confoverrides=overrides, warning=warnings
    )
    try:
        app.build()
    finally:
        app.cleanup()
    assert not warnings.getvalue(), warnings.getvalue()
    return tmp_path / "build" / "html"


def pasted_blocks(site: Path) -> list[dict]:
    """The page's Python blocks: the page's text of each (``code``), what its built copy button
    yields (``copied``) and the text of the output block after it (``output``, or None)."""
    blocks, settings = html_blocks(site / "page.html"), copy_settings(site)
    return [
        {"code": block.text, "copied": copied_text(block.text, settings),
         "output": after.text if (after := next(iter(blocks[i + 1 :]), None)) and after.is_output
         else None}
        for i, block in enumerate(blocks) if block.language == "python" and not block.is_output
    ]  # fmt: skip


def shown_outputs(step: dict, one_input: bool) -> list[str]:
    """The lines of the page's outputs for ``step`` that a REPL shows: each example's output at
    the classic prompt; with ``one_input`` (3.13's REPL, IPython: a pasted block is one input)
    a value only when its example is the block's last (what is printed, or raised, all the same).
    A plain block: its output block."""
    if not step["code"].startswith(">>>"):
        return (step["output"] or "").splitlines()
    examples = doctest.DocTestParser().get_examples(step["code"])
    return [
        line
        for example in examples
        if not one_input or example is examples[-1] or not _shows_a_value(example)
        for line in example.want.splitlines()
    ]


def _shows_a_value(example: doctest.Example) -> bool:
    """Whether the example's output is its value: one bare expression, not a ``print`` call."""
    body = ast.parse(example.source).body
    bare = len(body) == 1 and isinstance(body[0], ast.Expr)
    return bare and not example.source.startswith("print(")


def paste_problems(step: dict, shown: str, traceback: str, one_input: bool) -> list[str]:
    """What is wrong with what a REPL showed (``shown``, less the pasted code) for one block: a
    SyntaxError or IndentationError, a traceback (its first line: ``traceback``) the page does
    not show, the page's output lines that the REPL shows (:func:`shown_outputs`; but those
    that are also code lines) not all on the screen in order, as the page run compares
    (``...`` matches any text, runs of whitespace are equal)."""
    problems = [line.strip() for line in shown.splitlines() if line.startswith(SYNTAX_ERRORS)]
    examples = doctest.DocTestParser().get_examples(step["code"])
    if shown.count(traceback) > sum(example.exc_msg is not None for example in examples):
        problems.append("a traceback the page does not show")
    code = {line.strip() for line in step["copied"].splitlines()}  # not on the screen either
    lines = [
        line.strip() for line in shown_outputs(step, one_input)
        if line.strip() not in code and not line.startswith("Traceback")
    ]  # fmt: skip
    if not matches("..." + "...".join(lines) + "...", shown):
        problems.append(f"the screen does not show these output lines, in this order: {lines}")
    return problems
