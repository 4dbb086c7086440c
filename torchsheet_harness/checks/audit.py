"""The collection audit over docs/: every page's problems (:mod:`..pages.problems`), and every
snippet included by a page."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ..locations import display_path, page_files
from ..pages.page import read_page


@dataclass
class AuditResult:
    """Uncovered blocks (each a 'page:line: why' message) and counts of what was seen."""

    problems: list[str]
    counts: Counter


def audit_docs(docs_dir: Path, snippets_dir: Path | None = None) -> AuditResult:
    """Audit every page under ``docs_dir``; every script in ``snippets_dir`` must be included."""
    problems: list[str] = []
    counts: Counter = Counter()
    included: set[Path] = set()
    for path in page_files(docs_dir):
        page = read_page(path)  # its problems as its collection reports them
        problems += page.problems
        counts["covered"] += sum(block.runs for block in page.blocks)
        included |= {block.included for block in page.blocks if block.included}
    if snippets_dir is not None:
        for script in sorted(snippets_dir.iterdir()):
            if script.is_file() and script.resolve() not in included:
                problems.append(
                    f"{display_path(script)}: not literal-included by any page, so never tested"
                )
    return AuditResult(problems, counts)
