"""The ``%`` markers: their grammar and placement, checked at collection as pure functions of
torchsheet_harness/pages/markers.py; invisible to the harness; and the quick reference and
pitfalls the build makes of them, from the block itself (nothing retyped).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from sheet_site import CPU_213, build, plant, record, two_pages
from sybil import Document

from torchsheet_harness.pages.excerpts import ExcerptError, excerpt_lines
from torchsheet_harness.pages.markers import (
    Marker,
    Message,
    Pitfall,
    Quickref,
    messages_of,
    page_marker_problems,
    parse_marker,
    pitfall_of,
    quickref_of,
)
from torchsheet_harness.pages.parser import PageParser


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


def test_a_marker_is_one_comment_line_of_a_known_kind() -> None:
    assert parse_marker("% quickref: Creation | 3", 7) == Marker("quickref", "Creation | 3", 7)
    assert parse_marker("pitfall: a | b | c", 8) == Marker("pitfall", "a | b | c", 8)
    assert parse_marker("% error:", 9) == Marker("error", "", 9)
    assert parse_marker("% a plain comment", 1) is None
    assert parse_marker("% todo: later", 1) is None
    assert quickref_of(Marker("quickref", "Creation | 2, 4-5", 1)) == Quickref("Creation", "2, 4-5")
    assert quickref_of(Marker("quickref", "Creation", 1)) == Quickref("Creation", None)
    assert pitfall_of(Marker("pitfall", "a | `b` | c", 1)) == Pitfall("a", "`b`", "c")
    assert pitfall_of(Marker("pitfall", "a | b", 1)) is None


def test_aliases_belong_to_the_message_above_them() -> None:
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


def test_the_build_shows_marked_lines_and_links_them(tmp_path: Path) -> None:
    site = build(tmp_path, two_pages("```{quick-reference}\nCreation\n```", PAGE))
    assert site.warnings == ""
    sheet = re.search(r'<div class="ts-quickref[^"]*">(.*?)</section>', site.html(), re.S)[1]
    assert 'href="page.html#doctest"' in sheet
    assert "Size" in sheet and "zeros" not in sheet, "only line 3, with its output"
    assert 'id="pitfall-a-mistake"' in site.html("page")


@pytest.mark.parametrize(("outcome", "reason"), [("passed", None), ("failed", "Failed with")])
def test_a_line_counts_as_verified_only_when_its_own_block_passed(
    tmp_path: Path, outcome: str, reason: str | None
) -> None:
    plant(tmp_path, two_pages("```{quick-reference}\nCreation\n```", PAGE))
    record(tmp_path, CPU_213, {"8": {"outcome": outcome}, "18": {"outcome": "passed"},
                               "30": {"not_run": "a shell command"}}, page="page.md")  # fmt: skip
    text = build(tmp_path).html()
    assert ("ts-qr-unverified" in text) == (reason is not None)
    if reason:
        assert 'title="A page: Failed with torch 2.13.0 on CPU."' in text


def test_a_quickref_section_the_sheet_does_not_show_fails_the_build(tmp_path: Path) -> None:
    page = PAGE + "\n% quickref: Unknown section\n```python\nx = 1\n```\n"
    warnings = build(tmp_path, two_pages("```{quick-reference}\nCreation\n```", page)).warnings
    assert "page.md:34: quickref section 'Unknown section' is not on the quick" in warnings
