"""The page the REPL tests paste: the forms that are hard to paste, built with the site's conf.py.

Test support for tests/harness/test_paste_repls.py. :data:`PAGE` holds, one block each, what
failed or could fail at a prompt: a ``>>>`` class body with bare ``...`` lines between its
methods, a plain block with blank lines inside a loop, nested blocks under a decorator, ``try``
with ``except``/``finally`` and a bracket closed on a line of its own (lines that continue the
statement above), and a shown exception. :func:`built_page` builds it as the site is built
(sphinx.testing, warnings as errors); :func:`pasted_blocks` reads each block back from the HTML
as the copy button yields it; :func:`paste_problems` checks what a REPL showed for one block.
"""

from __future__ import annotations

import ast
import doctest
import shutil
from io import StringIO
from pathlib import Path

from built_site import DOCS, copy_settings, html_blocks
from sphinx.testing.util import SphinxTestApp

from torchsheet_harness.pages.copy_text import copied_text
from torchsheet_harness.run.outputs import matches

CLASS_BODY = """\
>>> class Counter:
...     def __init__(self, n):
...         self.n = n
...
...     def __len__(self):
...         return self.n
...
>>> len(Counter(3))
3"""
LOOP_WITH_BLANK_LINES = """\
total = 0
for step in range(3):
    total += step

    total *= 2
print("total", total)"""
PAGE = f"""\
# Pasting

The forms that are hard to paste at a prompt, one block each.

```python
{CLASS_BODY}
```

```python
{LOOP_WITH_BLANK_LINES}
```

```{{code-block}} text
:class: output
total 8
```

```python
from dataclasses import dataclass


@dataclass
class Point:
    x: int
    y: int

    def norm1(self):
        total = 0
        for value in (self.x, self.y):
            if value < 0:
                value = -value

            total += value
        return total


try:
    print(Point(3, -4).norm1())
except TypeError:
    print("no norm")
finally:
    print("done")
```

```{{code-block}} text
:class: output
7
done
```

```python
>>> sorted(
...     [3, 1, 2],
...     reverse=True,
... )
[3, 2, 1]
>>> {{"a": 1}}["b"]
Traceback (most recent call last):
    ...
KeyError: 'b'
```
"""


def built_page(tmp_path: Path) -> Path:
    """The HTML of :data:`PAGE`, built with docs/conf.py and docs/_static; fails on a warning."""
    source = tmp_path / "src"
    shutil.copytree(DOCS / "_static", source / "_static")
    shutil.copy(DOCS / "conf.py", source)
    (source / "index.md").write_text("# Planted\n\nPlanted.\n\n```{toctree}\npage\n```\n")
    (source / "page.md").write_text(PAGE)
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
    """The page's Python blocks, each as the built copy button yields it (``copied``), with the
    page's text of it (``code``) and of the output block after it (``output``, or None)."""
    blocks, settings = html_blocks(site / "page.html"), copy_settings(site)
    return [
        {"code": block.text, "copied": copied_text(block.text, settings),
         "output": after.text if (after := next(iter(blocks[i + 1 :]), None)) and after.is_output
         else None}
        for i, block in enumerate(blocks) if block.language == "python" and not block.is_output
    ]  # fmt: skip


def shown_outputs(step: dict, one_input: bool) -> str:
    """What a REPL shows of the outputs the page shows for ``step``.

    A ``>>>`` block at the classic prompt: each example's output. With ``one_input`` (Python
    3.13's REPL, IPython: a pasted block is one input): the value of a bare expression only when
    it is the block's last statement; what the others print (and an exception) all the same.
    A plain block: its output block.
    """
    if not step["code"].startswith(">>>"):
        return step["output"] or ""
    examples = doctest.DocTestParser().get_examples(step["code"])
    return "".join(
        example.want
        for index, example in enumerate(examples)
        if not one_input or index == len(examples) - 1 or not echoes_a_value(example.source)
    )


def echoes_a_value(source: str) -> bool:
    """Whether ``source`` is one bare expression (not a ``print``): its output is its value."""
    body = ast.parse(source).body
    if len(body) != 1 or not isinstance(body[0], ast.Expr):
        return False
    call = body[0].value
    return not (isinstance(call, ast.Call) and getattr(call.func, "id", None) == "print")


def paste_problems(step: dict, shown: str, traceback: str, one_input: bool) -> list[str]:
    """What is wrong with what a REPL showed (``shown``, less the pasted code) for one block.

    A SyntaxError or IndentationError; a traceback (its first line is ``traceback``) the page
    does not show; the output the page shows (of it what the REPL shows: :func:`shown_outputs`)
    not all on the screen, line after line, as doctest compares (``...`` matches any text).
    """
    errors = [line.strip() for line in shown.splitlines() if "Error: " in line and any(
        line.strip().startswith(name) for name in ("SyntaxError", "IndentationError", "TabError")
    )]  # fmt: skip
    examples = doctest.DocTestParser().get_examples(step["code"])
    expected_tracebacks = sum(example.exc_msg is not None for example in examples)
    if shown.count(traceback) > expected_tracebacks:
        errors.append("a traceback the page does not show")
    lines = [
        line.strip() for line in shown_outputs(step, one_input).splitlines()
        if line.strip() and not line.startswith("Traceback")
    ]  # fmt: skip
    if not matches("..." + "\n...".join(lines) + "...", shown):
        errors.append(f"the screen does not show these output lines, in this order: {lines}")
    return errors
