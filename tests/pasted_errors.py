"""What a reader pastes into the site search for each error entry, in the forms they paste it.

Test support for tests/test_error_search.py. An entry is a ``% error:`` / ``% warning:`` marker
on a page and the block after it; its ``printed`` line is what that block shows torch printing,
found in the page source: the doctest's exception (from its class through the line that holds
the message) or the output line that holds it, as one line. Each form rewrites it as a reader's
paste would differ: :func:`other_run`, :func:`cut_short`, :func:`in_traceback`; an alias
(``% alias: <older wording> | <where printed>`` after the marker) is pasted with the class.
"""

from __future__ import annotations

import doctest
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sybil import Document

from torchsheet_harness.pages.blocks import lex_blocks
from torchsheet_harness.sphinx_ext.error_markers import MARKER

ALIAS = re.compile(r"%\s*alias:\s*(?P<wording>.*?)\s*\|[^|]*$")
CLASS = re.compile(r"(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Warning)\b")
#: A number not inside a word ("mat1", "FP16", "LogBackward0" keep theirs), nor an address.
FREE_NUMBER = re.compile(r"(?<![A-Za-z0-9_])\d+(?!x[0-9a-f])")
ADDRESS = re.compile(r"0x[0-9a-f]+")
#: A quoted name: a parameter ("heads.cat.weight"), a grad_fn ('LogBackward0') or a type.
QUOTED_NAME = re.compile(r"""(['"])(?P<name>[A-Za-z_][\w.]*)\1""")
OTHER_PARAMETERS = ("encoder.proj.weight", "encoder.proj.bias", "decoder.out.weight")
PATH = re.compile(r"(?<![\w.])(?:/[\w.-]+){2,}")
FRAMES = (
    "Traceback (most recent call last):\n"
    '  File "/home/user/train.py", line 42, in <module>\n'
    "    main()\n"
    '  File "/home/user/train.py", line 37, in main\n'
    "    loss = train_step(model, batch)\n"
)


@dataclass(frozen=True)
class Entry:
    page: str  # under docs/
    line: int  # the marker's
    message: str  # the marker's
    printed: str  # what the block shows torch printing, with its class, on one line
    cls: str  # the class printed before the message ('' for none)
    aliases: tuple[str, ...]


def entries(docs: Path) -> list[Entry]:
    """Every marker under ``docs``, in page order."""
    found = []
    for page in sorted(docs.rglob("*.md")):
        if "_build" not in page.parts:
            found.extend(_page_entries(page, page.relative_to(docs).as_posix()))
    return found


def _page_entries(page: Path, name: str) -> Iterator[Entry]:
    text = page.read_text(encoding="utf-8")
    lines = text.splitlines()
    blocks = lex_blocks(Document(text, str(page)))
    for number, line in enumerate(lines, 1):
        if not line.startswith("% ") or not (marker := MARKER.fullmatch(line[2:].strip())):
            continue
        index = next(i for i, block in enumerate(blocks) if block.line > number)
        block, after = blocks[index], blocks[index + 1 : index + 2]
        output = str(after[0].source) if after and after[0].is_output else ""
        printed = shown_line(str(block.source), output, marker["kind"], marker["message"])
        cls = found[0] if (found := CLASS.search(printed)) else ""
        aliases = []
        for following in lines[number:]:
            if not (alias := ALIAS.fullmatch(following.strip())):
                break
            aliases.append(f"{cls}: {alias['wording']}" if cls else alias["wording"])
        yield Entry(name, number, marker["message"], printed, cls, tuple(aliases))


def shown_line(code: str, output: str, kind: str, message: str) -> str:
    """What the block shows torch printing: the lines from the exception's class through the
    one with ``message`` (a doctest), else the output line with it, as one line, without the
    doctest's ``...`` (the reader's own text there is unknown). A warning shown without its
    category gets Python's default, ``UserWarning``."""
    doctest_block = code.lstrip().startswith(">>>")
    if doctest_block:
        examples = doctest.DocTestParser().get_examples(code)
        shown = [e.exc_msg if kind == "error" else e.want for e in examples]
    else:
        shown = [output]
    head = " ".join(message.split()[:3])
    for text in filter(None, shown):
        lines = text.splitlines()
        at = next((i for i, line in enumerate(lines) if head in " ".join(line.split())), None)
        if at is None:
            continue
        first = 0 if kind == "error" and doctest_block else at  # from the exception's class
        printed = " ".join(lines[first : at + 1]).replace("0x...", "0x7f3a2c1d5e40")
        printed = " ".join(printed.replace("...", " ").split())
        if kind == "warning":
            printed = re.sub(r"^(\w+Warning):? ", r"\1: ", printed)
            printed = printed if CLASS.match(printed) else f"UserWarning: {printed}"
        return printed
    raise ValueError(f"{message!r} is not in what the block shows")


def other_run(text: str) -> str:
    """``text`` as another run prints it: other numbers, quoted names and paths."""
    parameters = iter(OTHER_PARAMETERS * 9)

    def other(quoted: re.Match[str]) -> str:
        name = quoted["name"]
        if re.fullmatch(r"\w+Backward\d+", name):
            name = "SqrtBackward0"
        elif not name[0].isupper():  # a type ('NoneType') is the same in every run
            name = next(parameters)
        return quoted[1] + name + quoted[1]

    text = QUOTED_NAME.sub(other, ADDRESS.sub("0x55d0c8a1b2f0", text))
    text = PATH.sub("/scratch/run7/checkpoint.pt", text)
    return FREE_NUMBER.sub(lambda number: str(int(number[0]) * 3 + 7), text)


def cut_short(text: str) -> str:
    """The first half of ``text``'s words (a line cut short, or the part a reader copied)."""
    words = text.split()
    return " ".join(words[: (len(words) + 1) // 2])


def in_traceback(text: str) -> str:
    """``text`` under a traceback's header and two frames, each line as the reader copied it."""
    return FRAMES + text + "\n"


FORMS = {"printed": str, "other-run": other_run, "cut-short": cut_short, "traceback": in_traceback}


def forms(entry: Entry) -> list[tuple[str, str]]:
    """(form, text pasted) for the entry: each of :data:`FORMS`, then each alias as printed."""
    pasted = [(form, make(entry.printed)) for form, make in FORMS.items()]
    return pasted + [(f"alias-{i}", alias) for i, alias in enumerate(entry.aliases, 1)]
