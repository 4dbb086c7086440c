"""What the results files say about one page and each of its blocks, merged over environments.

Every results file (:mod:`..results`) is one environment's view. For a page this module keeps
the environments whose entry was recorded on the page source as it is now (same sha256) and
drops the others; files of the same environment add up, block by block (the latest wins). It
holds no Sphinx: the status line (:mod:`.status`) and the badges (:mod:`.badges`) render it.

Merge rules, per block: a failure in any environment is a failure of the block (never hidden by
a pass elsewhere); a block is verified where it passed; a block an environment did not record
(a partial run) is simply not verified there, and its badge does not mention that run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sybil import Document

from .. import results
from ..pages.blocks import lex_blocks
from ..results import BlockEntry, Environment, Results

BAD = ("failed", "errors")


def runnable_lines(source: str | Path) -> list[int]:
    """The lines of the blocks of a page that the tests run (or report as not run)."""
    document = Document(Path(source).read_text(encoding="utf-8"), str(source))
    return [block.line for block in lex_blocks(document) if block.runs]


@dataclass
class PageView:
    """One page as the recorded runs saw it."""

    lines: list[int]  # the page's runnable blocks
    environments: dict[str, Environment] = field(default_factory=dict)  # fresh, by key
    blocks: dict[int, dict[str, BlockEntry]] = field(default_factory=dict)  # line → key → entry
    errors: dict[str, int] = field(default_factory=dict)  # key → collection errors
    stale: bool = False  # a run recorded the page, but an older source of it
    finished: str = ""

    def outcomes(self, line: int) -> dict[str, BlockEntry]:
        return self.blocks.get(line, {})

    def where(self, line: int, *outcomes: str) -> list[str]:
        """Keys of the environments where block ``line`` ended as one of ``outcomes``."""
        return [key for key, entry in self.outcomes(line).items() if entry["outcome"] in outcomes]

    def failing(self) -> list[int]:
        return [line for line in self.lines if self.where(line, *BAD)]

    def verified(self, key: str | None = None) -> list[int]:
        """Blocks that passed (in environment ``key``, or anywhere)."""
        return [
            line
            for line in self.lines
            if (key in self.where(line, "passed") if key else self.where(line, "passed"))
        ]

    def not_run(self) -> list[int]:
        """Blocks exempted with '% not-run:'."""
        return [
            line
            for line in self.lines
            if any(entry.get("not_run") for entry in self.outcomes(line).values())
        ]

    def lacking(self) -> dict[str, int]:
        """Requirement label → blocks that passed nowhere because no run had the hardware."""
        found: dict[str, int] = {}
        for line in self.lines:
            entries = self.outcomes(line).values()
            if self.where(line, "passed", *BAD):
                continue
            labels = {entry.get("requires") for entry in entries if entry.get("requires")}
            for label in sorted(labels)[:1]:
                found[label] = found.get(label, 0) + 1
        return found

    def unrecorded(self) -> list[int]:
        """Blocks no fresh run recorded (partial runs): neither verified nor skipped anywhere."""
        return [line for line in self.lines if not self.outcomes(line)]


def page_view(found: list[Results], page: str, digest: str, lines: list[int]) -> PageView:
    """The view of ``page`` (its path under docs/) whose source now has sha256 ``digest``."""
    view = PageView(lines)
    runs = sorted(
        ((data, entry) for data in found if (entry := data["pages"].get(page)) is not None),
        key=lambda run: run[1].get("finished", ""),
    )
    for data, entry in runs:  # oldest first: a later file of the same environment wins
        if entry.get("sha256") != digest:
            view.stale = True
            continue
        environment = data["environment"]
        key = environment["key"]
        view.environments[key] = environment
        view.finished = max(view.finished, entry.get("finished", ""))
        if entry.get("errors"):
            view.errors[key] = entry["errors"]
        for line, block in entry.get("blocks", {}).items():
            view.blocks.setdefault(int(line), {})[key] = block
    if view.environments:
        view.stale = False
    return view


# ---------------------------------------------------------------------------------------------
# Words


def join(words: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else "".join(words)


def describe_keys(environments: dict[str, Environment], keys: list[str]) -> str:
    """'torch 2.13.0 and 2.14.1 on CPU', grouped by device."""
    groups: dict[str, list[str]] = {}
    for key in keys:
        environment = environments[key]
        groups.setdefault(results.describe_device(environment), []).append(
            results.describe_torch(environment)
        )
    return join([f"torch {join(sorted(set(v)))} on {device}" for device, v in groups.items()])


def block_verdict(view: PageView, line: int) -> tuple[str, str] | None:
    """(state, sentence) for a block whose result differs between environments, or that
    failed, or that only a machine with the hardware could verify; None when there is
    nothing to say (passed everywhere, or no result)."""
    if not view.environments or line in view.not_run():
        return None
    environments = view.environments
    passed, bad = view.where(line, "passed"), view.where(line, *BAD)
    skipped = view.where(line, "skipped")
    parts = []
    if bad:
        parts.append(f"Failed with {describe_keys(environments, bad)}")
    if passed:
        verb = "passed" if bad else "Verified"
        parts.append(f"{verb} with {describe_keys(environments, passed)}")
    if not bad and not passed and not skipped:
        return None
    if skipped:
        reasons = sorted({view.outcomes(line)[key].get("reason", "") for key in skipped})
        why = f" ({'; '.join(reasons)})" if reasons and all(reasons) else ""
        lead = "skipped" if parts else "Not verified: skipped"
        parts.append(f"{lead} with {describe_keys(environments, skipped)}{why}")
    if bad:
        return "failed", "; ".join(parts) + "."
    if passed and not skipped:
        return None  # verified in every run that ran it (a run that did not select it: silent)
    return ("verified" if passed else "unverified"), "; ".join(parts) + "."
