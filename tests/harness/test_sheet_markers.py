"""Quick-reference and pitfall markers: invisible to the test harness, checked by the build.

A ``% quickref:`` / ``% pitfall:`` line before a block must change nothing the harness sees
(the examples, the not-run skips, the output-block pairing, the audit); the build collects the
marked lines from the block itself and warns, naming page:line, for a marker it cannot honour.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sheet_site import build
from sybil import Document

from torchsheet_harness.checks.audit import audit_page
from torchsheet_harness.pages.parser import PageParser
from torchsheet_harness.sphinx_ext.sheet_markers import chosen_lines

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


def regions(text: str, tmp_path: Path) -> list[tuple[str, object]]:
    path = tmp_path / "page.md"
    path.write_text(text, encoding="utf-8")
    document = Document(text, str(path))
    found = []
    for region in PageParser()(document):
        evaluator = region.evaluator
        expected = getattr(evaluator, "expected", None) or getattr(evaluator, "reason", None)
        found.append((type(evaluator).__name__, expected, text[region.start : region.end]))
    return found


def without_markers(text: str) -> str:
    return "".join(
        line for line in text.splitlines(keepends=True) if not line.startswith("% quickref:")
        and not line.startswith("% pitfall:")
    )  # fmt: skip


def test_markers_change_nothing_the_harness_collects(tmp_path: Path) -> None:
    marked, bare = regions(PAGE, tmp_path), regions(without_markers(PAGE), tmp_path)
    assert [(kind, expected) for kind, expected, _ in marked] == [
        (kind, expected) for kind, expected, _ in bare
    ]
    kinds = [kind for kind, _, _ in marked]
    assert "PythonBlock" in kinds and "SkipWithReason" in kinds
    plain = next(expected for kind, expected, _ in marked if kind == "PythonBlock")
    assert plain == "hi\n", "the output block is still paired with the block before it"


def test_markers_leave_the_audit_clean(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(PAGE, encoding="utf-8")
    assert audit_page(page, tmp_path).problems == []


def test_a_marker_between_not_run_and_its_block_is_caught_by_the_audit(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(PAGE.replace("% not-run: a shell command\n", "% not-run: x\n% quickref: X\n"))
    problems = audit_page(page, tmp_path).problems
    assert problems and all("page.md" in problem for problem in problems)


def test_lines_are_chosen_by_the_line_their_statement_starts_on() -> None:
    code = ">>> import torch\n>>> x = torch.zeros(2)\n>>> x.shape\ntorch.Size([2])\n"
    assert chosen_lines(code, None, "p:1") == (
        "x = torch.zeros(2)",
        "x.shape  # → torch.Size([2])",
    )
    assert chosen_lines(code, "2-3", "p:1") == chosen_lines(code, None, "p:1")
    try:
        chosen_lines(code, "4", "p.md:7")
    except ValueError as error:
        assert str(error).startswith("p.md:7: line 4 of the block is not the start")
    else:
        raise AssertionError("line 4 is an output line, not a statement")


def test_the_build_shows_marked_lines_and_links_them(tmp_path: Path) -> None:
    finished = build(tmp_path, PAGE)
    assert finished.returncode == 0, finished.stderr
    html = (tmp_path / "html" / "index.html").read_text(encoding="utf-8")
    assert 'href="page.html#doctest"' in html
    sheet = re.search(r'<div class="ts-quickref">(.*?)</section>', html, re.DOTALL)[1]
    assert "torch.Size([2])" in sheet and "zeros" not in sheet, "only line 3, with its output"
    assert 'id="pitfall-a-mistake"' in (tmp_path / "html" / "page.html").read_text()


@pytest.mark.parametrize(
    ("outcome", "title"),
    [("passed", None), ("failed", "Failed with torch 2.13.0 on CPU.")],
)
def test_a_line_counts_as_verified_only_when_its_own_block_passed(
    tmp_path: Path, outcome: str, title: str | None
) -> None:
    lines = PAGE.splitlines()
    doctest_block = lines.index("% quickref: Creation | 3") + 2  # the fence after the marker
    other_block = lines.index("% pitfall: a mistake | what it does | the fix") + 2
    blocks = {str(doctest_block): {"outcome": outcome}, str(other_block): {"outcome": "passed"}}
    finished = build(tmp_path, PAGE, blocks)
    assert finished.returncode == 0, finished.stderr
    html = (tmp_path / "html" / "index.html").read_text(encoding="utf-8")
    found = re.findall(r'ts-qr-unverified" title="([^"]*)"', html)
    assert found == ([title] if title else []), html


def test_bad_markers_fail_the_build_naming_page_and_line(tmp_path: Path) -> None:
    page = PAGE.replace("% quickref: Creation | 3", "% quickref: Creation | 4")
    page = page.replace("% not-run: a shell command\n", "% pitfall: only | two\n")
    page = page.replace("% pitfall: a mistake | what it does | the fix", "% pitfall: a | b")
    page += "\n% quickref: Unknown section\n```python\nx = 1\n```\n"
    finished = build(tmp_path, page)
    assert finished.returncode != 0
    assert "page.md:7: line 4 of the block is not the start of a statement" in finished.stderr
    assert "page.md:29: '% pitfall:' must be directly followed by an executed block" in (
        finished.stderr
    )
    assert "page.md:17: write '% pitfall: <the mistake> | <what it does> | <the fix>'" in (
        finished.stderr
    )
    assert "page.md:34: quickref section 'Unknown section' is not on the quick reference" in (
        finished.stderr
    )
