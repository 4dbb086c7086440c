"""A page's problems that fail its collection: code blocks no example covers (found by a lexer of
their own: a ```` ```pycon ```` fence or a ``{testcode}`` would otherwise sit untested and
silent), fences that swallow a heading or another block, and the copy and marker checks."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sybil import Document
from sybil.parsers.markdown.lexers import RawFencedCodeBlockLexer

from ..locations import display_path, line_at, place
from .copy_text import copy_problems
from .markers import page_marker_problems, parse_marker

if TYPE_CHECKING:
    from .page import Page

#: Directives that hold prose, not code; any other ```{directive} counts as a code block.
NON_CODE_DIRECTIVES = frozenset(
    "admonition attention caution danger error hint important note seealso tip warning "
    "toctree figure image list-table csv-table table math glossary rubric topic sidebar "
    "contents only dropdown tab-set tab-item grid grid-item grid-item-card card margin "
    "versionadded versionchanged deprecated epigraph div "
    # torchsheet's own directives (torchsheet_harness.sphinx_ext)
    "page-overview quick-reference pitfalls run-times errors verified-environments".split()
)
#: Fences whose body is Markdown: headings and shorter fences inside are what they show.
MARKDOWN_LANGUAGES = frozenset({"markdown", "md", "myst"})
_INFO = re.compile(r"(?P<info>[^\n]*)$\n", re.MULTILINE)
_DIRECTIVE = re.compile(r"\{(?P<name>[\w:-]+)\}")
_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
#: A section heading (Python comments in blocks use a single '#').
_SECTION_HEADING = re.compile(r"^ {0,3}#{2,6}[ \t]+\S")


def fence_faults(document: Document) -> list[str]:
    """'page:line: why' for each fence that swallows another fence, or never closes (CommonMark's
    rules); an unclosed block names the first heading it swallowed: where its fence went missing."""
    page = display_path(document.path)
    faults = []
    opened: tuple[str, int, str] | None = None  # (fence, line, language)
    heading: str | None = None  # the first heading line inside the open block, for the message
    reported = False

    def fault(first: int, what: str) -> str:
        where = heading or what  # the heading, when one was swallowed, says where it went wrong
        return (
            f"{page}:{first}: the block opened here contains {where}; its closing fence is missing?"
        )

    for number, line in enumerate(document.text.splitlines(), 1):
        fence = _FENCE.match(line)
        if opened is None:
            if fence is not None and not (fence["fence"][0] == "`" and "`" in fence["info"]):
                language = fence["info"].strip().split(" ")[0].lower()
                opened, heading, reported = (fence["fence"], number, language), None, False
            continue
        mark, first, language = opened
        if fence is not None and fence["fence"][0] == mark[0] and len(fence["fence"]) >= len(mark):
            if not fence["info"].strip():
                opened = None
                continue
            if not reported:
                what = f"the opening line of another block ({line.strip()}) at line {number}"
                faults.append(fault(first, what))
                reported = True
        elif heading is None and language not in MARKDOWN_LANGUAGES:
            if _SECTION_HEADING.match(line):
                heading = f"a heading ({line.strip()}) at line {number}"
    if opened is not None and not reported:
        if heading is None:
            faults.append(f"{page}:{opened[1]}: the block opened here is never closed")
        else:
            faults.append(fault(opened[1], heading))
    return faults


def page_problems(page: Page) -> list[str]:
    """Every problem of the page, each 'page:line: why'."""
    document = Document(page.text, page.path)
    spans = [(block.start, block.stop) for block in page.blocks if block.runs]
    problems = fence_faults(document)
    # Every fenced block or directive, nested ones included, with a lexer of its own.
    for region in RawFencedCodeBlockLexer(info_pattern=_INFO)(document):
        info = region.lexemes["info"].strip()
        directive = _DIRECTIVE.match(info)
        covered = any(start < region.end and region.start < end for start, end in spans)
        if covered or (directive and directive["name"] in NON_CODE_DIRECTIVES):
            continue
        problems.append(
            f"{place(page.path, line_at(page.text, region.start))}: code block ```{info} is "
            "neither executed nor exempted; use ```python, {code-block} python or a checked "
            "output block, or put '% not-run: <reason>' on the line before it"
        )
    attached = {marker.line for block in page.blocks for marker in block.markers}
    dangling = [
        marker
        for number, line in enumerate(page.text.splitlines(), 1)
        if line.startswith("%") and number not in attached
        if (marker := parse_marker(line, number)) is not None
    ]
    for block in page.blocks:
        if block.pasted:
            problems += copy_problems(block.code, place(page.path, block.line))
    return problems + page_marker_problems(page.path, page.blocks, dangling)
