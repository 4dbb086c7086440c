"""The collection audit: no code block on a page may go unchecked without saying why.

Sybil only sees what its parsers match; a ```` ```pycon ```` fence, ```` ```python title=x ````,
``{testcode}`` or a shell block would otherwise sit on the page untested and silent. The check
of one page lives in :mod:`..pages.coverage` (the parser runs it on every page it collects, so
``pytest docs/x.md`` fails too); this module runs it over docs/ and checks that every snippet is
included by a page.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ..locations import display_path, page_files
from ..pages.collect import page_sybil
from ..pages.coverage import code_blocks, page_problems


@dataclass
class AuditResult:
    """Uncovered blocks (each a 'page:line: why' message) and counts of what was seen."""

    problems: list[str]
    counts: Counter


def audit_page(path: Path, docs_dir: Path) -> AuditResult:
    """Check one page: each code block must overlap an example the harness collects, and each
    fence must close where it should. (The parser runs the same check when it collects a page.)"""
    document = page_sybil(docs_dir, check_coverage=False).parse(path)
    spans = [(region.start, region.end) for _, region in document.regions]
    problems = page_problems(document, spans)
    counts = Counter(
        covered=sum(
            any(start < block.end and block.start < end for start, end in spans)
            for block in code_blocks(document)
        )
    )
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
