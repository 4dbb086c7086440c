"""The collection audit: no code block on a page may go unchecked without saying why.

Sybil only sees what its parsers match; a ```` ```pycon ```` fence, ```` ```python title=x ````,
``{testcode}`` or a shell block would otherwise sit on the page untested and silent. This module
finds every code block with a lexer of its own and reports each one that no example covers.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from sybil import Document
from sybil.parsers.markdown.lexers import RawFencedCodeBlockLexer

from ..locations import display_path, line_at, page_files
from ..pages.blocks import dangling_not_run, lex_blocks
from ..pages.collect import page_sybil

#: Directives that hold prose, not code; any other ```{directive} counts as a code block.
NON_CODE_DIRECTIVES = frozenset(
    "admonition attention caution danger error hint important note seealso tip warning "
    "toctree figure image list-table csv-table table math glossary rubric topic sidebar "
    "contents only dropdown tab-set tab-item grid grid-item grid-item-card card margin "
    "versionadded versionchanged deprecated epigraph div "
    # torchsheet's own directives (torchsheet_harness.sphinx_ext)
    "page-overview quick-reference pitfalls".split()
)
_INFO = re.compile(r"(?P<info>[^\n]*)$\n", re.MULTILINE)
_DIRECTIVE = re.compile(r"\{(?P<name>[\w:-]+)\}")


@dataclass(frozen=True)
class CodeBlock:
    """A code block as the audit sees it: where it is and its fence info string."""

    page: str
    line: int
    start: int
    end: int
    info: str


@dataclass
class AuditResult:
    """Uncovered blocks (each a 'page:line: why' message) and counts of what was seen."""

    problems: list[str]
    counts: Counter


def code_blocks(document: Document) -> list[CodeBlock]:
    """Every fenced code block or code directive in ``document``, nested ones included."""
    page = display_path(document.path)
    blocks = []
    for region in RawFencedCodeBlockLexer(info_pattern=_INFO)(document):
        info = region.lexemes["info"].strip()
        directive = _DIRECTIVE.match(info)
        if directive and directive["name"] in NON_CODE_DIRECTIVES:
            continue
        line = line_at(document.text, region.start)
        blocks.append(CodeBlock(page, line, region.start, region.end, info))
    return blocks


def audit_page(path: Path, docs_dir: Path) -> AuditResult:
    """Check one page: each code block must overlap an example the harness collects."""
    document = page_sybil(docs_dir).parse(path)
    spans = [(region.start, region.end) for _, region in document.regions]
    problems, counts = [], Counter()
    for block in code_blocks(document):
        covered = any(start < block.end and block.start < end for start, end in spans)
        if covered:
            counts["covered"] += 1
            continue
        problems.append(
            f"{block.page}:{block.line}: code block ```{block.info} is neither executed nor "
            "exempted; use ```python, {code-block} python or a checked output block, or put "
            "'% not-run: <reason>' on the line before it"
        )
    for line in dangling_not_run(document, lex_blocks(document)):
        problems.append(f"{display_path(path)}:{line}: '% not-run:' is not followed by a block")
    return AuditResult(problems, counts)


def audit_docs(docs_dir: Path, snippets_dir: Path | None = None) -> AuditResult:
    """Audit every page under ``docs_dir``; every script in ``snippets_dir`` must be included."""
    problems: list[str] = []
    counts: Counter = Counter()
    included: set[Path] = set()
    for page in page_files(docs_dir):
        result = audit_page(page, docs_dir)
        problems += result.problems
        counts += result.counts
        text = page.read_text(encoding="utf-8")
        for match in re.finditer(r"\{literalinclude\}\s*(\S+)", text):
            included.add((page.parent / match[1]).resolve())
    if snippets_dir is not None:
        for script in sorted(snippets_dir.iterdir()):
            if script.is_file() and script.resolve() not in included:
                problems.append(
                    f"{display_path(script)}: not literal-included by any page, so never tested"
                )
    return AuditResult(problems, counts)
