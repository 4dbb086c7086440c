"""A pasted block as notebook code cells: a notebook shows only a cell's last value, so a ``>>>``
block becomes one cell per run of examples that ends in a shown value (or an exception); a plain
block is one cell. Each cell carries the output the page shows, as Jupyter would show it."""

from __future__ import annotations

import ast
import doctest
import re
from dataclasses import dataclass, field

from ..locations import place
from ..pages.model import Block
from .prose import ExportError

#: Doctest options that only change how an output is compared: a notebook can keep them.
_COMPARING = {"ELLIPSIS", "NORMALIZE_WHITESPACE", "IGNORE_EXCEPTION_DETAIL"}
_OPTION = re.compile(r"#\s*doctest:\s*(?P<options>.*)$", re.MULTILINE)
_EXCEPTION = re.compile(r"^(?P<name>[\w.]+)(?::\s?(?P<value>.*))?$", re.DOTALL)


@dataclass
class CodeCell:
    """A code cell: its ``source``, its first page ``line``, the ``outputs`` the page shows."""

    source: str
    line: int
    outputs: list[dict] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)


def stream(text: str, name: str = "stdout") -> dict:
    return {"output_type": "stream", "name": name, "text": text}


def result(text: str) -> dict:
    data = {"text/plain": text.rstrip("\n")}
    return {"output_type": "execute_result", "execution_count": None, "data": data, "metadata": {}}


def error(line: str) -> dict:
    """An exception as Jupyter shows it, from the page's exception line ('RuntimeError: ...')."""
    match = _EXCEPTION.match(line.strip())
    name, value = (match["name"], match["value"] or "") if match else (line.strip(), "")
    traceback = ["Traceback (most recent call last):", "    ...", line.rstrip("\n")]
    return {"output_type": "error", "ename": name, "evalue": value, "traceback": traceback}


def _shown(source: str, want: str) -> dict:
    """What a cell whose last statement is ``source`` shows for ``want``: its value, or what it
    printed."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        body = []
    last = body[-1] if body else None
    printing = (
        isinstance(last, ast.Expr)
        and isinstance(last.value, ast.Call)
        and isinstance(last.value.func, ast.Name)
        and last.value.func.id == "print"
    )
    if isinstance(last, ast.Expr) and not printing:
        return result(want)
    return stream(want)


def _blank(want: str) -> str:
    return "\n".join("" if line == "<BLANKLINE>" else line for line in want.split("\n"))


def doctest_cells(block: Block, path: str) -> list[CodeCell]:
    """A ``>>>`` block's cells: each run of examples up to one that shows something."""
    cells: list[CodeCell] = []
    pending: list[doctest.Example] = []
    first = block.first_code_line
    for example in doctest.DocTestParser().get_examples(block.code):
        where = place(path, first + example.lineno)
        options = _OPTION.search(example.source)
        if options and set(re.findall(r"[A-Z_]+", options["options"])) - _COMPARING:
            raise ExportError(
                f"{where}: a notebook cannot express the doctest option {options['options']!r}: "
                "it would run what the tests did not, or show what they did not compare"
            )
        pending.append(example)
        if not example.want and example.exc_msg is None:
            continue
        source = "".join(e.source for e in pending)
        if example.source.rstrip().endswith(";") and example.want:
            raise ExportError(
                f"{where}: IPython shows nothing for a statement ending in ';', but the page "
                "shows its value: drop the ';'"
            )
        cell = CodeCell(source.rstrip("\n"), first + pending[0].lineno)
        if example.exc_msg is not None:  # doctest shows the traceback's last lines only
            cell.outputs.append(error(example.exc_msg))
            cell.tags.append("raises-exception")
        else:
            cell.outputs.append(_shown(example.source, _blank(example.want)))
        cells.append(cell)
        pending = []
    if pending:
        source = "".join(e.source for e in pending).rstrip("\n")
        cells.append(CodeCell(source, first + pending[0].lineno))
    return cells


def pasted_cells(block: Block, path: str) -> list[CodeCell]:
    """The cells of a block a reader pastes: a ``>>>`` block's, or a plain block as one cell
    with the output block after it."""
    if block.code.lstrip().startswith(">>>"):
        return doctest_cells(block, path)
    cell = CodeCell(block.code.rstrip("\n"), block.first_code_line)
    if block.output is not None:
        cell.outputs.append(stream(block.output))
    return [cell]
