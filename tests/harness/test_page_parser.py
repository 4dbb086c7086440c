"""The page parser in-process, with Sybil's ``check_parser``: each page region carries its block,
and a block's faults are reported at its page line (no pytest subprocess needed)."""

from __future__ import annotations

import textwrap
import traceback
from pathlib import Path

import pytest
from sybil import Document
from sybil.example import SybilFailure
from sybil.testing import check_parser

from torchsheet_harness.checks.audit import audit_page
from torchsheet_harness.pages import page as pages
from torchsheet_harness.pages.coverage import fence_faults
from torchsheet_harness.pages.markers import Marker
from torchsheet_harness.pages.parser import PageParser, block_of
from torchsheet_harness.pages.requirements import Requirement, RequirementError

PAGE = """\
# Title

Purpose.

## First `section`

```python
>>> 1 + 1
2
>>> 2 + 2
4
```

## Needs hardware

```{code-block} python
:class: needs-cuda
>>> import torch
```

% not-run: shown only
```bash
echo hi
```
"""


def page(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def test_every_region_carries_its_block() -> None:
    document = Document(PAGE, "page.md")
    blocks = [block_of(region) for region in PageParser()(document)]
    assert blocks[0] is blocks[1]  # two >>> examples, one block
    described = [(b.line, b.end, b.slug, b.requirement, b.not_run) for b in blocks[1:]]
    assert described == [
        (7, 12, "first-section", Requirement(), None),
        (16, 19, "needs-hardware", Requirement(gpus=1), None),
        (22, 24, "needs-hardware", Requirement(), "shown only"),
    ]
    assert blocks[-1].markers == (Marker("not-run", "shown only", 21),)


def test_a_page_is_lexed_once_per_process_for_each_text(monkeypatch) -> None:
    lexed = []
    monkeypatch.setattr(pages, "_blocks", lambda document: lexed.append(1) or [])
    text = PAGE.replace("Purpose.", "Purpose, lexed once.")
    first = pages.page_of("once.md", text)
    assert pages.page_of("once.md", text) is first and len(lexed) == 1
    pages.page_of("once.md", text + "\nEdited.\n")
    assert len(lexed) == 2  # another text: read again


def failure_of(text: str) -> str:
    with pytest.raises(SybilFailure) as failed:
        check_parser(PageParser(), page(text))
    return str(failed.value)


def test_a_directive_with_options_raises_at_its_page_line() -> None:
    text = """
        # Raising in a directive with options

        ```{code-block} python
        :caption: the options line shifts the code down
        y = 2
        raise KeyError("planted in a directive")
        ```
        """
    with pytest.raises(KeyError) as raised:
        check_parser(PageParser(), page(text))
    assert traceback.extract_tb(raised.tb)[-1].lineno == 6


def test_a_wrong_output_block_fails_with_expected_and_got() -> None:
    message = failure_of("""
        ```python
        print("got this")
        ```

        ```{code-block} text
        :class: output
        expected that
        ```
        """)
    assert ":1: the output shown on the page is not what the code printed" in message
    assert "expected that" in message and "got this" in message


def test_a_block_that_prints_unseen_output_fails() -> None:
    message = failure_of("""
        # Printing without showing it

        ```python
        print("nobody sees this")
        ```
        """)
    assert ":3: the block printed output but the page shows none" in message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("% not-run:\n```bash\necho hi\n```\n", ":1: write '% not-run: <why it is not run>'"),
        (
            "Prose.\n\n```{code-block} text\n:class: output\nhello\n```\n",
            ":3: an output block must directly follow",
        ),
        ("```{code-block} python\n:class: needs-gpu3\nx = 1\n```\n", ":1: unknown requirement"),
        (
            "```python\nx = 1\n```\n\n```pycon\n>>> 1\n1\n```\n",
            ":5: code block ```pycon is neither executed nor exempted",
        ),
        (
            "# T\n\n```python\nx = 1\n\n## Next\n\nProse.\n\n```python\ny = 2\n```\n",
            ":3: the block opened here contains a heading (## Next) at line 6",
        ),
        (
            "```python\nx = 1\n\n```{code-block} python\ny = 2\n```\n",
            ":1: the block opened here contains the opening line of another block "
            "(```{code-block} python) at line 4",
        ),
        (
            "```python\nx = 1\n```\n\n```python\ny = 2\n",
            ":5: the block opened here is never closed",
        ),
        (
            "```{code-block} python\n:class: needs-torchrun-2 shows-deprecation\nx = 1\n```\n",
            ":1: shows-deprecation is for a block run in-process",
        ),
    ],
    ids=[
        "not-run without a reason",
        "dangling output",
        "misspelled requirement",
        "unchecked pycon block",
        "fence swallowed a heading",
        "fence swallowed a block",
        "fence never closed",
        "launched block showing a deprecation",
    ],
)
def test_a_page_fault_is_a_parse_error_at_its_line(tmp_path: Path, text: str, message: str):
    path = tmp_path / "page.md"
    path.write_text(text)
    with pytest.raises(RequirementError) as error:
        list(PageParser()(Document(text, str(path))))
    assert f"page.md{message}" in str(error.value)
    # The audit reports the same fault (except those the parser alone can see).
    if "code block" in message or "the block opened here" in message:
        assert any(f"page.md{message}" in problem for problem in audit_page(path).problems)


def test_a_closed_block_may_hold_lines_that_look_like_headings(tmp_path: Path) -> None:
    # A '## ' Python comment, and an output that prints one: not a swallowed heading.
    text = (
        "# T\n\n```python\n## step one\nprint('## done')\n```\n\n"
        "```{code-block} text\n:class: output\n## done\n```\n"
    )
    path = tmp_path / "page.md"
    path.write_text(text)
    assert fence_faults(Document(text, str(path))) == []
    assert len(list(PageParser()(Document(text, str(path))))) == 1


def test_a_markdown_example_may_show_fences_and_headings(tmp_path: Path) -> None:
    text = "````markdown\n## A heading\n\n```python\nx = 1\n```\n````\n"
    path = tmp_path / "page.md"
    path.write_text(text)
    assert fence_faults(Document(text, str(path))) == []


def test_a_page_run_and_a_docs_build_lex_the_page_once(pytester, monkeypatch, tmp_path) -> None:
    """One process runs a page's tests, then builds the site from it: one reading in all (the
    site reads the doctree and the results file, never the page's source)."""
    from planted import PLUGIN, RECORDER, conftest
    from sheet_site import build, two_pages
    from sybil.parsers.markdown import lexers as markdown
    from sybil.parsers.myst import lexers as myst

    lexed, sybil_lexers = [], []
    read = pages._blocks
    monkeypatch.setattr(pages, "_blocks", lambda document: lexed.append(1) or read(document))
    for lexer in (
        markdown.FencedCodeBlockLexer,
        markdown.RawFencedCodeBlockLexer,
        myst.DirectiveLexer,
    ):
        call = lexer.__call__
        monkeypatch.setattr(
            lexer, "__call__", lambda self, doc, c=call: sybil_lexers.append(1) or c(self, doc)
        )
    text = PAGE.replace("Purpose.", f"Purpose, read once ({tmp_path.name}).")
    pytester.makeconftest(conftest(PLUGIN, RECORDER))
    pytester.mkdir("docs")
    pytester.path.joinpath("docs", "page.md").write_text(text)
    pytester.inline_run("-p", "no:cacheprovider", "docs").assertoutcome(passed=2, skipped=2)
    assert len(lexed) == 1
    sybil_lexers.clear()
    site = build(
        tmp_path,
        two_pages("", text),
        conf=f"torchsheet_results = {str(pytester.path / 'docs' / '_build' / 'results')!r}\n",
    )
    assert "Verified with torch" in site.html("page")
    assert len(lexed) == 1 and sybil_lexers == []
