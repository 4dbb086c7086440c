"""A page read once: :func:`page_of`, cached per process by its text, gives its blocks (the
:mod:`.model`), each carrying everything known about it, and its problems (:mod:`.problems`);
every later step takes that :class:`Page`. The code blocks are the page's fences
(:mod:`.fences`) in two forms: a plain ```` ```lang ```` fence, and a MyST code directive
(```` ```{code-block} lang ````, ``{literalinclude} path``) with its ``:name: value`` options."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from ..locations import line_at, place
from ..results import page_digest
from .fences import Fence, fences
from .markers import parse_marker
from .model import Block, Page
from .problems import page_problems
from .requirements import RequirementError, parse_classes

CODE_DIRECTIVES = r"code-block|sourcecode|code"
_DIRECTIVE = re.compile(rf"\{{(?P<name>{CODE_DIRECTIVES}|literalinclude)\}} ?(?P<argument>.*)")
_OPTIONS = re.compile(r"(?:[ \t]*:[\w-]*:[^\n]*\n)+")
_OPTION = re.compile(r"[^:]*:(?P<name>[^:]+):[ \t]*(?P<value>[^\n]*)\n")
_HEADING = re.compile(r"^#{1,6}[ \t]+(?P<title>.+?)[ \t]*#*[ \t]*$", re.MULTILINE)


def read_page(path: str | Path) -> Page:
    """The page at ``path``, read from disk (cached while its text is unchanged)."""
    return page_of(str(path), Path(path).read_text(encoding="utf-8"))


@cache
def page_of(path: str, text: str) -> Page:
    """The page ``path`` whose source is ``text``: lexed once per process for each text."""
    page = Page(path, text, page_digest(text), [])
    blocks = [block for fence in fences(text) if (block := _block(text, fence)) is not None]
    headings = [
        (match.start(), match["title"])
        for match in _HEADING.finditer(text)
        if not any(block.start <= match.start() < block.stop for block in blocks)
    ]
    lines = text.splitlines()
    problems: list[str] = []
    for block in blocks:
        problems += _identify(page, block, headings, lines)
    page.blocks = _fold_outputs(page, blocks, problems)
    page.problems = problems + page_problems(page)
    return page


def _block(text: str, fence: Fence) -> Block | None:
    """The code block a fence holds: a plain fence with a language (or none), or a code
    directive; None for any other directive (a note, a toctree)."""
    source, offset = fence.content, fence.content_offset
    if not fence.info.startswith("{"):
        kind, argument, classes = "fence", fence.info.strip(), ()
    elif directive := _DIRECTIVE.fullmatch(fence.info):
        options = _OPTIONS.match(source)
        found = {m["name"]: m["value"] for m in _OPTION.finditer(options[0])} if options else {}
        skipped = options.end() if options else 0
        skipped += len(source[skipped:]) - len(source[skipped:].lstrip("\n"))
        source, offset = source[skipped:], offset + skipped
        name = directive["name"]
        kind = "literalinclude" if name == "literalinclude" else "code-block"
        argument, classes = directive["argument"].strip(), tuple(found.get("class", "").split())
    else:
        return None
    line_offset = max(text.count("\n", fence.start, offset) - 1, 0)
    return Block(
        fence.start, fence.stop, 0, 0, kind, argument, classes, source, offset, line_offset
    )


def _identify(
    page: Page, block: Block, headings: list[tuple[int, str]], lines: list[str]
) -> list[str]:
    """Give ``block`` its lines, section, markers and requirement; return what is wrong."""
    block.line = line_at(page.text, block.start)
    block.end = line_at(page.text, block.stop - 1)
    title = next((title for at, title in reversed(headings) if at < block.start), None)
    if title is not None:
        block.section, block.slug = title.replace("`", ""), slug(title)
    above = block.line - 1  # 1-based line of the line above the block
    while above >= 1 and lines[above - 1].startswith("%"):
        above -= 1
    markers = (parse_marker(lines[n - 1], n) for n in range(above + 1, block.line))
    block.markers = tuple(marker for marker in markers if marker is not None)
    if block.kind == "literalinclude":
        block.included = (Path(page.path).parent / block.argument).resolve()
    where = place(page.path, block.line)
    problems = []
    try:
        block.requirement = parse_classes(" ".join(block.classes), where, block.is_python)
    except RequirementError as error:
        problems.append(str(error))
    requirement = block.requirement
    if block.gpu_host and (requirement.gpus or requirement.slurm or requirement.no_gpu):
        problems.append(
            f"{where}: '% gpu-host:' exempts a CPU block only (no needs-* but torchrun)"
        )
    return problems


def _fold_outputs(page: Page, blocks: list[Block], problems: list[str]) -> list[Block]:
    """The blocks with each output block folded into the block right before it."""
    folded: list[Block] = []
    for block in blocks:
        before = folded[-1] if folded else None
        adjacent = before is not None and not page.text[before.stop : block.start].strip()
        if block.is_output and block.not_run is None:
            if adjacent and before.output_block is None and not before.is_output:
                before.output_block, before.stop, before.end = block, block.stop, block.end
                continue
            problems.append(
                f"{place(page.path, block.line)}: an output block must directly follow "
                "the block that prints it"
            )
        folded.append(block)
    return folded


def slug(title: str) -> str:
    """The anchor Sphinx gives a heading: lower case, runs of other characters as one '-'."""
    return re.sub(r"[^a-z0-9]+", "-", title.replace("`", "").lower()).strip("-")
