"""A page's problems, decided in one place: every fault that keeps a page from running as
written, each 'page:line: why'. The run fails the page's collection with them, the audit lists
them, the site shows none of a page that has them. Code blocks no example covers (a
```` ```pycon ```` fence or a ``{testcode}`` would otherwise sit untested and silent), fences that
swallow a heading or another block, blocks declared in a way nothing can run, and the copy and
marker checks."""

from __future__ import annotations

import re

from ..locations import line_at, place
from .copy_text import copy_problems
from .fences import fence_faults, fences
from .markers import page_marker_problems, parse_marker
from .model import Block, Page

#: Directives that hold prose, not code; any other ```{directive} counts as a code block.
NON_CODE_DIRECTIVES = frozenset(
    "admonition attention caution danger error hint important note seealso tip warning "
    "toctree figure image list-table csv-table table math glossary rubric topic sidebar "
    "contents only dropdown tab-set tab-item grid grid-item grid-item-card card margin "
    "versionadded versionchanged deprecated epigraph div "
    # torchsheet's own directives (torchsheet_harness.sphinx_ext)
    "page-overview quick-reference pitfalls run-times errors verified-environments "
    "what-changed".split()
)
_DIRECTIVE = re.compile(r"\{(?P<name>[\w:-]+)\}")


def page_problems(page: Page) -> list[str]:
    """Every problem of the page, each 'page:line: why'."""
    problems = fence_faults(page.path, page.text)
    spans = [(block.start, block.stop) for block in page.blocks if block.runs]
    for fence in fences(page.text):  # nested ones included
        directive = _DIRECTIVE.match(fence.info.strip())
        covered = any(start < fence.stop and fence.start < end for start, end in spans)
        if covered or (directive and directive["name"] in NON_CODE_DIRECTIVES):
            continue
        problems.append(
            f"{place(page.path, line_at(page.text, fence.start))}: code block "
            f"```{fence.info.strip()} is neither executed nor exempted; use ```python, "
            "{code-block} python or a checked output block, or put '% not-run: <reason>' on the "
            "line before it"
        )
    for block in page.blocks:
        problems += _declaration_problems(page, block)
        if block.pasted:
            problems += copy_problems(block.code, place(page.path, block.line))
    attached = {marker.line for block in page.blocks for marker in block.markers}
    dangling = [
        marker
        for number, line in enumerate(page.text.splitlines(), 1)
        if line.startswith("%") and number not in attached
        if (marker := parse_marker(line, number)) is not None
    ]
    return problems + page_marker_problems(page.path, page.blocks, dangling)


def _declaration_problems(page: Page, block: Block) -> list[str]:
    """Why nothing can run ``block`` as it is declared, if so."""
    if not block.executed:
        return []
    where = place(page.path, block.line)
    script = block.included
    if block.shows_deprecation and (block.launched or script is not None):
        return [
            f"{where}: shows-deprecation is for a block run in-process, whose output shows the "
            "warning; a launched block that shows one catches it (warnings.catch_warnings) and "
            "prints it"
        ]
    if script is not None and not script.is_file():
        return [f"{where}: literalinclude names a missing file {script}"]
    if script is not None and not block.launched and script.suffix != ".py":
        return [
            f"{where}: {block.argument} is not a Python script; declare how it runs "
            "(needs-torchrun-N or needs-slurm)"
        ]
    doctest = script is None and not block.launched and block.code.startswith(">>>")
    if doctest and block.output_block is not None:
        return [f"{where}: a >>> block shows its own output; drop the output block after it"]
    return []
