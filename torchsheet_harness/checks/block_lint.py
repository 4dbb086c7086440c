"""Lint the Python on the pages with ruff's pyflakes rules, reporting page:line: a page's in-process
blocks as one module (each at its page line), its torchrun blocks one by one; and ``>>>``
blocks that go on after an exception (IPython and Jupyter stop a pasted block there).
``python -m torchsheet_harness.checks.block_lint [docs]``"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from ..locations import display_path, page_files, place
from ..pages.excerpts import prompt_examples, source_parts
from ..pages.page import read_page

RULES = ["--select", "F,E9", "--ignore", "F811"]
_RUFF_LINE = re.compile(r"^[^:]+:(?P<line>\d+):(?P<col>\d+): (?P<message>.*)$")


def page_modules(page: Path) -> list[tuple[str, int]]:
    """(source, first line) of each program on the page: the page module, then torchrun blocks."""
    lines: list[str] = []
    programs: list[tuple[str, int]] = []
    for block in read_page(page).blocks:
        if not block.executed or block.included is not None or block.requirement.slurm:
            continue  # exempted blocks, scripts and batch scripts
        first = block.first_code_line
        if block.requirement.torchrun:
            programs.append((block.code, first))
            continue
        for source, offset in source_parts(block.code):
            lines.extend([""] * (first + offset - 1 - len(lines)))
            lines.extend(source.rstrip("\n").splitlines())
    return [("\n".join(lines) + "\n", 1), *programs]


def lint_page(page: Path) -> list[str]:
    """ruff's findings for one page, each as 'page:line:col: message'."""
    findings = []
    for source, first in page_modules(page):
        padded = "\n" * (first - 1) + source if first > 1 else source
        ruff = [sys.executable, "-m", "ruff", "check", *RULES, "--output-format", "concise"]
        argv = [*ruff, "--stdin-filename", "page.py", "-"]
        result = subprocess.run(argv, input=padded, capture_output=True, text=True)
        for line in result.stdout.splitlines():
            if match := _RUFF_LINE.match(line):
                findings.append(
                    f"{display_path(page)}:{match['line']}:{match['col']}: {match['message']}"
                )
    return findings


def paste_findings(page: Path) -> list[str]:
    """``>>>`` blocks that go on after an exception, as 'page:line: why'."""
    findings = []
    for block in read_page(page).blocks:
        examples = (prompt_examples(block.code) or [])[:-1] if block.pasted else []
        raised = next((example for example in examples if example.exc_msg is not None), None)
        if raised is not None:
            line = block.first_code_line + raised.lineno
            findings.append(
                f"{place(page, line)}: this exception is not the end of its >>> block; IPython "
                "and Jupyter stop a pasted block at its first exception, so the lines after it "
                "never run there: end the block here and go on in a new one"
            )
    return findings


def main(argv: list[str]) -> int:
    docs = Path(argv[0] if argv else "docs")
    findings = []
    for page in page_files(docs):
        findings += lint_page(page) + paste_findings(page)
    print("\n".join(findings) or "page blocks: no findings")
    return 1 if findings else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
