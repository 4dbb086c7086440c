"""The fences of a MyST page, lexed once: :func:`fences` finds every fenced block, nested ones
included, as Sybil's Markdown lexers do (a fence closes the innermost open block whose fence it
matches in kind, length and prefix; a block never closed runs to the end), and
:func:`fence_faults` names each fence that by CommonMark's rules swallows another block or a
heading, or never closes. No Sybil, no Markdown library: the page's grammar is this small."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

from ..locations import display_path

#: An opening or closing fence, after a block quote's or a list item's prefix.
_FENCE = re.compile(
    r"^(?P<prefix>(?:[ \t]*>)+[ \t]*|[ \t]*(?:[-*+]|\d+[.)])[ \t]+|[ \t]*)"
    r"(?P<fence>`{3,}|~{3,})(?P<trailing>[^\n]*)",
    re.MULTILINE,
)


@dataclass(frozen=True)
class Fence:
    """One fenced block: ``text[start:stop]`` from its opening fence to its closing one."""

    start: int
    stop: int
    info: str  # the opening line after the fence: 'python', '{code-block} python'
    content: str  # what follows the info line, the prefix stripped and dedented
    content_offset: int  # where that starts in the page text
    closed: bool


def _strip_prefix(text: str, prefix: str) -> str:
    """``text`` without a list item's or block quote's ``prefix`` on each line, dedented."""
    lines = text.splitlines(keepends=True)
    return textwrap.dedent("".join(line[len(prefix) :] or line[-1] for line in lines))


def _closes(current: re.Match[str], existing: re.Match[str]) -> bool:
    fence, opened = current["fence"], existing["fence"]
    return (
        fence[0] == opened[0]
        and len(fence) >= len(opened)
        and len(current["prefix"]) == len(existing["prefix"])
        and not current["trailing"].strip()
    )


def _fence(text: str, opening: re.Match[str], closing: re.Match[str] | None) -> Fence | None:
    end = closing.start() if closing else len(text)
    info_end = text.find("\n", opening.start("trailing"), end)
    if info_end < 0:
        return None  # an opening line with nothing after it
    content = _strip_prefix(text[info_end + 1 : end], opening["prefix"])
    stop = closing.end() if closing else len(text)
    info = text[opening.start("trailing") : info_end]
    return Fence(opening.start(), stop, info, content, info_end + 1, closing is not None)


def fences(text: str) -> list[Fence]:
    """Every fenced block of ``text``, nested ones included, in page order."""
    found: list[Fence] = []
    open_blocks: list[re.Match[str]] = []
    for match in _FENCE.finditer(text):
        for depth, existing in enumerate(open_blocks):
            if _closes(match, existing):
                if (fence := _fence(text, existing, match)) is not None:
                    found.append(fence)
                open_blocks = open_blocks[:depth]
                break
        else:
            open_blocks.append(match)
    if open_blocks and (fence := _fence(text, open_blocks[0], None)) is not None:
        found.append(fence)
    return sorted(found, key=lambda fence: fence.start)


#: Fences whose body is Markdown: headings and shorter fences inside are what they show.
MARKDOWN_LANGUAGES = frozenset({"markdown", "md", "myst"})
_COMMONMARK_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
#: A section heading (Python comments in blocks use a single '#').
_SECTION_HEADING = re.compile(r"^ {0,3}#{2,6}[ \t]+\S")


def fence_faults(path: str, text: str) -> list[str]:
    """'page:line: why' for each fence that swallows another fence, or never closes (CommonMark's
    rules); an unclosed block names the first heading it swallowed: where its fence went missing."""
    page = display_path(path)
    faults = []
    opened: tuple[str, int, str] | None = None  # (fence, line, language)
    heading: str | None = None  # the first heading line inside the open block, for the message
    reported = False

    def fault(first: int, what: str) -> str:
        where = heading or what  # the heading, when one was swallowed, says where it went wrong
        return (
            f"{page}:{first}: the block opened here contains {where}; its closing fence is missing?"
        )

    for number, line in enumerate(text.splitlines(), 1):
        fence = _COMMONMARK_FENCE.match(line)
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
