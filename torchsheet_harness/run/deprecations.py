"""No deprecated API on a page: a block whose own code warns that it is deprecated fails.
A deprecation is the block's when it points at the block's code or at the torch wrapper the block
called (:mod:`.warning_origin`); one raised deeper in torch goes to pytest's warnings summary.
In-process blocks: :class:`Watch`; launched blocks: :func:`launch_filters`, read back by
:func:`deprecation_error`. A ``shows-deprecation`` block prints its own, failing if none comes."""

from __future__ import annotations

import builtins
import os
import re
import sys
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..locations import place
from .gpu_host import rank_site_first
from .warning_origin import CATEGORIES, SCRIPT_ENV, blamed

DECLARE = "declare it on the block with ':class: shows-deprecation' and show the warning"
_NAMES = "|".join(category.__name__ for category in CATEGORIES)
_ERROR_LINE = re.compile(rf"^(?:\[rank\d+\]: ?)?(?P<category>{_NAMES}): (?P<text>.*)$")
_PRINTED = re.compile(r"^(?P<file>\S.*?):(?P<line>\d+): (?P<category>\w*Warning): (?P<text>.*)$")


@dataclass
class Watch:
    """Records the warnings of one in-process example (``with Watch(example) as watch:``)."""

    example: Any  # a sybil Example
    shown: bool = False  # the block declares shows-deprecation
    caught: list[tuple[warnings.WarningMessage, int | None]] = field(default_factory=list)

    def __enter__(self) -> Watch:
        self._context = warnings.catch_warnings()
        self._context.__enter__()
        for category in CATEGORIES:  # every occurrence, wherever raised: none hides behind "once"
            warnings.simplefilter("always", category)
        warnings.showwarning = self._record
        return self

    def __exit__(self, *exc: object) -> None:
        self._context.__exit__(*exc)
        for message, line in self.caught:  # the block's own: its failure or output shows them
            if line is None:
                warnings.warn_explicit(
                    message.message, message.category, message.filename, message.lineno
                )

    def _record(self, message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
        caught = warnings.WarningMessage(message, category, filename, lineno, file, line)
        page_line = self.page_line(caught)
        self.caught.append((caught, page_line))
        if self.shown and page_line is not None:
            # Where the reader's terminal shows it, between what the code prints.
            sys.stdout.write(f"{category.__name__}: {message}\n")

    def _is_page(self, filename: str) -> bool:
        path = self.example.path
        return filename == path or filename.startswith(f"<doctest {path}[")

    def page_line(self, message: warnings.WarningMessage) -> int | None:
        """The page line of a deprecation the block's own code raised; None for others."""
        if not issubclass(message.category, CATEGORIES):
            return None
        found = blamed(message.filename, message.lineno, self._is_page)
        if found is None:
            return None
        filename, line = found
        if filename == self.example.path:  # a plain block: compiled as the page, at its lines
            return line
        return self.example.line + line - 1  # a >>> example: its own lines

    def failure(self) -> str | None:
        """Why the example fails: its code used a deprecated API (or declared one it did not)."""
        own = [(line, message) for message, line in self.caught if line is not None]
        if self.shown:
            return unused_declaration(self.example, raised=bool(own))
        if not own:
            return None
        lines = [
            f"{place(self.example.path, line)}: deprecated API: "
            f"{message.category.__name__}: {message.message}"
            for line, message in own
        ]
        return "\n".join(lines) + f"\n(use what the warning says; to show it on purpose, {DECLARE})"


def unused_declaration(example: Any, raised: bool) -> str | None:
    """At a declared block's last example, a failure when none of its examples ``raised`` one."""
    line = example.region.block.line
    shown = example.document.__dict__.setdefault("torchsheet_shown_deprecations", {})
    shown[line] = shown.get(line, False) or raised
    examples = [
        region.start
        for _, region in example.document.regions
        if getattr(getattr(region, "block", None), "line", None) == line
    ]
    if example.region.start != max(examples):
        return None
    if shown[line]:
        return None
    return (
        f"{place(example.path, line)}: the block declares shows-deprecation, but its code "
        "raised no DeprecationWarning or FutureWarning; drop the class"
    )


def launch_filters(script: Path, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a launched ``script`` runs with: deprecations shown wherever raised, and an
    error where the script's own code raises one (the rank hook, and a filter on ``__main__``)."""
    env = env if env is not None else os.environ
    entries = [f"default::{category.__name__}" for category in CATEGORIES]
    entries += [f"error::{category.__name__}:__main__" for category in CATEGORIES]
    before = env.get("PYTHONWARNINGS")
    return {
        "PYTHONWARNINGS": ",".join([before, *entries] if before else entries),
        "PYTHONPATH": rank_site_first(env),
        SCRIPT_ENV: os.path.abspath(script),
    }


def processes_failure(
    stderr: Mapping[str, str], script: str, where: Callable[[str, int], str], failure: str | None
) -> str | None:
    """``failure`` of launched processes (None: they succeeded), led by the deprecation one
    stopped on; either way, the warnings they printed are issued again for pytest's summary."""
    for text in stderr.values():  # issued again, for pytest's warnings summary
        for match in map(_PRINTED.match, text.splitlines()):
            if match is None:
                continue
            category = getattr(builtins, match["category"], None)
            if not (isinstance(category, type) and issubclass(category, Warning)):
                category = UserWarning
            warnings.warn_explicit(match["text"], category, match["file"], int(match["line"]))
    deprecated = deprecation_error(stderr, script, where) if failure else None
    return f"{deprecated}\n{failure}" if deprecated else failure


def deprecation_error(
    stderr: Mapping[str, str], script: str, where: Callable[[str, int], str]
) -> str | None:
    """'page:line: deprecated API: FutureWarning: ...' when a process (named: its stderr) stopped
    on a deprecation its script raised; ``where(script, line)`` names the line for a reader."""
    for name, text in stderr.items():
        lines = text.splitlines()
        for index, text in enumerate(lines):
            error = _ERROR_LINE.match(text)
            if error is None:
                continue
            frames = [re.search(r'File "(.*)", line (\d+)', earlier) for earlier in lines[:index]]
            in_script = [frame for frame in frames if frame and frame[1] == script]
            if in_script:
                line = int(in_script[-1][2])
                return (
                    f"{where(script, line)}: deprecated API: {error['category']}: "
                    f"{error['text']} (an error in {name}; use what the warning says)"
                )
    return None
