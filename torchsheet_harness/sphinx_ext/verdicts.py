"""What the results files say about one page and each of its blocks, merged over environments:
only entries recorded on the page as it is now count, the latest of an environment winning; a
failure anywhere is the block's failure; a block not run whole is not verified there. No Sphinx."""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import results
from ..pages.requirements import Requirement
from ..results import BlockEntry, Environment, Results

BAD = ("failed", "errors")


@dataclass
class PageView:
    """One page as the recorded runs saw it."""

    lines: list[int] = field(default_factory=list)  # the page's blocks, as the runs listed them
    environments: dict[str, Environment] = field(default_factory=dict)  # fresh, by key
    blocks: dict[int, dict[str, BlockEntry]] = field(default_factory=dict)  # line → key → entry
    errors: dict[str, int] = field(default_factory=dict)  # key → collection errors
    stale: bool = False  # a run recorded the page, but an older source of it
    finished: str = ""
    needs: dict[int, Requirement] = field(default_factory=dict)  # the page's non-CPU blocks

    def where(self, line: int, *outcomes: str) -> list[str]:
        """Keys of the environments where block ``line`` ended as one of ``outcomes``."""
        entries = self.blocks.get(line, {})
        return [key for key, entry in entries.items() if entry.get("outcome") in outcomes]

    def failing(self) -> list[int]:
        return [line for line in self.lines if self.where(line, *BAD)]

    def verified(self, key: str | None = None) -> list[int]:
        """Blocks that passed (in environment ``key``, or anywhere)."""
        passed = {line: self.where(line, "passed") for line in self.lines}
        return [line for line, keys in passed.items() if (key in keys if key else keys)]

    def not_run(self) -> list[int]:
        """Blocks exempted with '% not-run:'."""
        entries = self.blocks
        return [
            line for line in self.lines if any(e.get("not_run") for e in entries[line].values())
        ]

    def requirement(self, line: int) -> Requirement | None:
        """What block ``line`` needs, as the page declares it (None: a CPU block)."""
        return self.needs.get(line)

    def lacking(self) -> dict[Requirement, int]:
        """Requirement → blocks that passed nowhere because no run had the hardware."""
        found: dict[Requirement, int] = {}
        for line in self.lines:
            requirement = self.requirement(line)
            if requirement is not None and not self.where(line, "passed", *BAD):
                found[requirement] = found.get(requirement, 0) + 1
        return found

    def unrecorded(self) -> list[int]:
        """Blocks no fresh run ran (partial runs): neither verified nor skipped anywhere."""
        return [line for line in self.lines if not self.where(line, *results.OUTCOMES)]


def page_view(
    found: list[Results], page: str, digest: str, needs: dict[int, Requirement] | None = None
) -> PageView:
    """The view of ``page`` (its path under docs/) whose source now has sha256 ``digest`` and
    whose blocks need ``needs`` (line → requirement, the page model's non-CPU blocks)."""
    view = PageView(needs=dict(needs or {}))
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
    view.lines = sorted(view.blocks)
    view.stale = view.stale and not view.environments
    return view


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


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
        reasons = sorted({view.blocks[line][key].get("reason", "") for key in skipped})
        why = f" ({'; '.join(reasons)})" if reasons and all(reasons) else ""
        lead = "skipped" if parts else "Not verified: skipped"
        parts.append(f"{lead} with {describe_keys(environments, skipped)}{why}")
    if bad:
        return "failed", "; ".join(parts) + "."
    if passed and not skipped:
        return None  # verified in every run that ran it (a run that did not select it: silent)
    return ("verified" if passed else "unverified"), "; ".join(parts) + "."
