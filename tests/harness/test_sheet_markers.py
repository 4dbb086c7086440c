"""The ``%`` markers: their grammar and placement, and what they point at (an excerpt that runs as
shown, a trap listed on the pitfalls page), checked at collection as pure functions of
torchsheet_harness/pages/ naming page:line; invisible to the harness; and the quick reference
and pitfalls the build makes of them, from the block itself (nothing retyped)."""

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from sheet_site import CPU_213, build, plant, record, two_pages
from sybil import Document

from torchsheet_harness.pages.excerpts import (
    ExcerptError,
    excerpt_lines,
    excerpt_problem,
    module_bindings,
)
from torchsheet_harness.pages.markers import (
    Marker,
    Message,
    messages_of,
    page_marker_problems,
    parse_marker,
)
from torchsheet_harness.run.regions import PageParser


@dataclass
class Block:
    """A block as collection hands it to page_marker_problems (the MarkedBlock protocol)."""

    line: int
    markers: tuple[Marker, ...] = ()
    code: str = "x = 1\n"
    output: str | None = None
    executed: bool = True
    section: str = "A section"


def marked(line: int, *texts: str, **fields) -> Block:
    """A block whose fence is on ``line``, under the marker lines ``texts``."""
    markers = tuple(parse_marker(text, line - len(texts) + i) for i, text in enumerate(texts))
    return Block(line, markers, **fields)


PAGE = """\
# A page

What it is for.

## Doctest

% quickref: Creation | 3
```python
>>> import torch
>>> x = torch.zeros(2)
>>> x.shape
torch.Size([2])
```

## Plain block with output

% pitfall: a mistake | what it does | the fix
```python
print("hi")
```

```{code-block} text
:class: output
hi
```

## Not run

% not-run: a shell command
```bash
echo hi
```
"""


def test_a_marker_is_a_comment_line_of_a_known_kind_and_an_alias_belongs_to_its_message() -> None:
    assert parse_marker("% quickref: Creation | 3", 7) == Marker("quickref", "Creation | 3", 7)
    assert parse_marker("pitfall: a | b | c", 8) == Marker("pitfall", "a | b | c", 8)
    assert parse_marker("% error:", 9) == Marker("error", "", 9)
    assert parse_marker("% a plain comment", 1) is None
    assert parse_marker("% todo: later", 1) is None
    markers = marked(
        10,
        "% error: new wording",
        "% alias: old wording | torch 2.4",
        "% alias: older | pytorch/pytorch@abc:torch/x.py",
        "% warning: a warning",
        "% quickref: Creation",
        "% alias: stray | torch 2.0",
    ).markers
    assert messages_of(markers) == [
        Message("error", "new wording", 4, (("old wording", "torch 2.4"),
                                            ("older", "pytorch/pytorch@abc:torch/x.py"))),
        Message("warning", "a warning", 7),
    ]  # fmt: skip


def test_bad_markers_are_problems_naming_page_and_line() -> None:
    doctest = ">>> import torch\n>>> x = torch.zeros(2)\n>>> x.shape\ntorch.Size([2])\n"
    blocks = [
        marked(8, "% quickref: Creation | 4", code=doctest),  # line 4 is an output line
        marked(12, "% quickref:"),
        marked(16, "% pitfall: a | b"),
        marked(20, "% pitfall: only | on | prose", executed=False),
        marked(24, "% alias: older | torch 2.4"),
        marked(28, "% error: boom", "% alias: older, no where"),
        marked(32, "% not-run:", executed=False),
    ]
    dangling = [Marker("quickref", "Creation", 40)]
    assert page_marker_problems("docs/p.md", blocks, dangling) == [
        "docs/p.md:7: line 4 of the block is not the start of a statement; statements start "
        "on lines 1, 2, 3",
        "docs/p.md:11: write '% quickref: <section>' (or '% quickref: <section> | 2, 4-5')",
        "docs/p.md:15: write '% pitfall: <the mistake> | <what it does> | <the fix>' (three "
        "parts separated by ' | ')",
        "docs/p.md:19: '% pitfall:' must be directly followed by an executed block (```python, "
        "{code-block} python or a {literalinclude}), not a not-run, output or other block",
        "docs/p.md:23: '% alias:' goes right after '% error:', '% warning:' or another "
        "'% alias:' line",
        "docs/p.md:26: '% error: boom': the block after it raises nothing: show the exception "
        "as a doctest ('Traceback (most recent call last):', then the exception line), or the "
        "output block of a script",
        "docs/p.md:27: write '% alias: <older wording> | <torch version(s) or "
        "pytorch/pytorch@<commit>:<path> where printed>'",
        "docs/p.md:31: write '% not-run: <why it is not run>'",
        "docs/p.md:40: '% quickref:' must be directly followed by its block (no blank line or "
        "text between)",
    ]


def test_lines_are_chosen_by_the_line_their_statement_starts_on() -> None:
    code = ">>> import torch\n>>> x = torch.zeros(2)\n>>> x.shape\ntorch.Size([2])\n"
    assert excerpt_lines(code, None) == ("x = torch.zeros(2)", "x.shape  # → torch.Size([2])")
    assert excerpt_lines(code, "2-3") == excerpt_lines(code, None)
    with pytest.raises(ExcerptError, match="write them as '2, 4-5'"):
        excerpt_lines(code, "2-a")


def regions(text: str, tmp_path: Path) -> list[tuple[str, object]]:
    path = tmp_path / "page.md"
    path.write_text(text, encoding="utf-8")
    found = []
    for region in PageParser()(Document(text, str(path))):
        evaluator = region.evaluator
        expected = getattr(evaluator, "expected", None) or getattr(evaluator, "reason", None)
        found.append((type(evaluator).__name__, expected))
    return found


def test_markers_change_nothing_the_harness_collects(tmp_path: Path) -> None:
    bare = "".join(line for line in PAGE.splitlines(True) if not line.startswith(("% q", "% p")))
    marked_regions = regions(PAGE, tmp_path)
    assert marked_regions == regions(bare, tmp_path)
    assert ("PythonBlock", "hi\n") in marked_regions, "the output block still pairs with its block"
    assert "SkipWithReason" in [kind for kind, _ in marked_regions]


@pytest.mark.parametrize("outcome", ["passed", "failed"])
def test_the_build_shows_marked_lines_verified_only_when_their_block_passed(
    tmp_path: Path, outcome: str
) -> None:
    plant(tmp_path, two_pages("```{quick-reference}\nCreation\n```", PAGE))
    record(tmp_path, CPU_213, {"8": {"outcome": outcome}, "18": {"outcome": "passed"},
                               "30": {"not_run": "a shell command"}}, page="page.md")  # fmt: skip
    site = build(tmp_path)
    assert site.warnings == ""
    sheet = re.search(r'<div class="ts-quickref[^"]*">(.*?)</section>', site.html(), re.S)[1]
    assert 'href="page.html#doctest"' in sheet
    assert "Size" in sheet and "zeros" not in sheet, "only line 3, with its output"
    assert 'id="pitfall-a-mistake"' in site.html("page")
    failed = 'title="A page: Failed with torch 2.13.0 on CPU."'
    assert ("ts-qr-unverified" in sheet, failed in sheet) == ((outcome == "failed",) * 2)


def test_a_quickref_section_the_sheet_does_not_show_fails_the_build(tmp_path: Path) -> None:
    page = PAGE + "\n% quickref: Unknown section\n```python\nx = 1\n```\n"
    warnings = build(tmp_path, two_pages("```{quick-reference}\nCreation\n```", page)).warnings
    assert "page.md:34: quickref section 'Unknown section' is not on the quick" in warnings


def test_an_excerpt_uses_only_names_the_page_defines_before_it() -> None:
    page = ["import torch\nx = torch.zeros(2)\n", "for item in x:\n    total = item\n"]
    assert excerpt_problem(["x.sum(), total", "len(torch.ones(1))"], page) is None
    assert "only the header 'for item in x:' binds" in excerpt_problem(["print(item)"], page)
    assert "'later'" in excerpt_problem(["later + 1"], page)
    assert excerpt_problem(["[y for y in x]", "f = lambda z: z"], page) is None


def test_module_bindings_tell_plain_statements_from_headers() -> None:
    source = (
        "import torch.nn as nn\nfrom os import path\nx, (y, *z) = 1, (2, 3)\n"
        "def f(a):\n    inner = a\nfor i in range(2):\n    body = i\n"
        "with open('f') as handle:\n    pass\n"
        "try:\n    pass\nexcept OSError as error:\n    caught = 1\n"
    )
    plain, headers = module_bindings(source)
    assert plain == {"nn", "path", "x", "y", "z", "f", "body", "caught"}
    assert set(headers) == {"i", "handle", "error"}
    assert module_bindings("not python (") == (set(), {})


def test_excerpts_that_do_not_run_as_shown_are_problems_naming_page_and_line() -> None:
    loop = "for item in range(3):\n    print(item)\n"
    blocks = [
        marked(7, code=">>> import torch\n>>> x = torch.zeros(2)\n"),
        marked(11, "% quickref: Creation", code=">>> x.shape\ntorch.Size([2])\n"),  # fine
        marked(15, "% quickref: Creation | 2", code=loop),
        marked(19, "% quickref: Creation | 1", code="with open('f') as h:\n    t = h.read()\n"),
        marked(23, "% quickref: Creation | 3", code=loop.replace("print", "total =") + "item\n"),
        marked(27, "% quickref: Creation", code="print(undefined_name)\n"),
    ]
    problems = page_marker_problems("docs/p.md", blocks)
    assert [problem.split(": ", 1)[0] for problem in problems] == [
        "docs/p.md:14", "docs/p.md:18", "docs/p.md:22", "docs/p.md:26"
    ]  # fmt: skip
    assert (
        "does not compile as shown (its line 1, '    print(item)': unexpected indent"
        in (problems[0])
    )
    assert "does not compile as shown" in problems[1]
    assert "the excerpt uses 'item', which only the header 'for item in range(3):'" in problems[2]
    assert "the excerpt uses 'undefined_name', which neither" in problems[3]


def test_a_trap_the_pitfalls_page_does_not_list_is_a_problem() -> None:
    blocks = [
        marked(7, section="Pitfall: one without a marker"),
        marked(13, "% pitfall: a | b | c", section="Where it goes wrong, marked"),
        marked(18, code="# WRONG, on purpose: the demonstration\nz = 3\n", section="A script"),
        marked(22, code="# WRONG\n", executed=False, section="A script"),  # prose: owes none
    ]
    assert page_marker_problems("docs/p.md", blocks) == [
        "docs/p.md:7: the section 'Pitfall: one without a marker' is titled as a trap, but no "
        "block in it is listed on the pitfalls page; put '% pitfall: <the mistake> | <what it "
        "does> | <the fix>' before the block that shows it, or retitle the section",
        "docs/p.md:18: this block says WRONG in a comment, but is not listed on the pitfalls "
        "page; put '% pitfall: <the mistake> | <what it does> | <the fix>' before it",
    ]
    blocks[0] = marked(7, "% pitfall: d | e | f", section="Pitfall: one without a marker")
    blocks[2] = marked(18, "% pitfall: g | h | i", code="# WRONG\n", section="A script")
    assert page_marker_problems("docs/p.md", blocks) == []
