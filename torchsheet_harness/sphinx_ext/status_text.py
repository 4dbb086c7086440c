"""The status line's words, from the page views of :mod:`.verdicts` (pure functions)."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass

from .. import results
from ..pages.requirements import Requirement
from ..results import Environment
from . import verdicts
from .verdicts import PageView, plural


@dataclass
class Status:
    """What the status line says: ``state`` is verified, partial, failed, stale or unverified."""

    state: str
    text: str
    detail: str = ""


def _lacked(needs: dict[Requirement, int]) -> str:
    """'17 need a CUDA GPU, 1 needs 2 GPUs (2 processes, torchrun)'."""
    return ", ".join(
        f"{count} {'needs' if count == 1 else 'need'} {requirement.in_words}"
        for requirement, count in needs.items()
    )


def _verified_where(views: list[PageView]) -> str:
    """'torch 2.13.0 and 2.14.1 on CPU (42 blocks), and on NVIDIA H200 with torch 2.11.0+cu130
    (7 CUDA blocks)': each environment that verified blocks, grouped by device."""
    environments: dict[str, Environment] = {}
    passed: Counter[str] = Counter()
    gated: defaultdict[str, Counter[str]] = defaultdict(Counter)  # key → label → passed blocks
    for view in views:
        environments.update(view.environments)
        for key in view.environments:
            lines = view.verified(key)
            passed[key] += len(lines)
            gated[key].update(need.label for need in filter(None, map(view.requirement, lines)))
    groups: dict[str, list[str]] = {}
    for key in sorted(passed, key=lambda k: _version_order(environments[k])):
        if passed[key]:
            groups.setdefault(results.describe_device(environments[key]), []).append(key)
    phrases = []
    for device, keys in groups.items():
        counts = [_blocks(passed[k], gated[k]) for k in keys]
        versions = [results.describe_torch(environments[k]) for k in keys]
        if len(set(counts)) == 1:
            torch, counted = f"torch {verdicts.join(versions)}", f" ({counts[0]})"
        else:
            each = [f"{v} ({n})" for v, n in zip(versions, counts, strict=True)]
            torch, counted = f"torch {verdicts.join(each)}", ""
        on_cpu = f"with {torch} on CPU{counted}"
        phrases.append(on_cpu if device == "CPU" else f"on {device} with {torch}{counted}")
    return ", and ".join(phrases)


def _version_order(environment: Environment) -> tuple:
    numbers = re.findall(r"\d+", environment.get("torch", ""))
    return (environment.get("gpus", 0), tuple(int(n) for n in numbers))


def _blocks(count: int, gated: dict[str, int]) -> str:
    """'42 blocks', '7 CUDA blocks', '49 blocks, 7 of them CUDA'."""
    if len(gated) == 1 and sum(gated.values()) == count:
        return plural(count, f"{next(iter(gated))} block")
    if gated:
        of_them = ", ".join(f"{n} {label}" for label, n in gated.items())
        return f"{plural(count, 'block')}, {sum(gated.values())} of them {of_them}"
    return plural(count, "block")


def status_of(views: list[PageView], pages_without_result: int = 0) -> Status:
    """The status line for one page's view, or the sum over a section's pages."""
    fresh = [view for view in views if view.environments]
    if not fresh:
        if views and all(view.stale for view in views) and not pages_without_result:
            return Status(
                "stale",
                "Not verified in this build: the page changed after the last test run.",
                "Run the tests (nox -s docs-tests) again, then build.",
            )
        return Status(
            "unverified",
            "Not verified in this build: no test results for this page"
            + (" or the pages below it." if pages_without_result else "."),
            "Run the tests (nox -s docs-tests) before building to record them.",
        )
    environments = {key: env for view in fresh for key, env in view.environments.items()}
    single = len(environments) == 1
    finished = max(view.finished for view in fresh)
    detail = f"Last test run: {finished}." if finished else ""
    blocks = sum(len(view.lines) - len(view.not_run()) for view in fresh)
    passed = sum(len(view.verified()) for view in fresh)
    failing = [(view, line) for view in fresh for line in view.failing()]
    errors = [(view, key) for view in fresh for key in view.errors]
    if failing or errors:
        bad_keys = sorted(
            {key for view, line in failing for key in view.where(line, *verdicts.BAD)}
            | {key for _, key in errors}
        )
        where = verdicts.describe_keys(environments, bad_keys)
        text = f"Failing with {where}: "
        if failing:
            text += f"{len(failing)} of {plural(blocks, 'block')} failed"
            if len(fresh) == 1:
                text += f" (line {verdicts.join([str(line) for _, line in failing])})"
            elsewhere = sorted(
                {key for view, line in failing for key in view.where(line, "passed")}
            )
            if elsewhere:
                text += f", passing with {verdicts.describe_keys(environments, elsewhere)}"
        if errors:
            text += ("; " if failing else "") + f"{plural(len(errors), 'page')} did not collect"
        return Status("failed", text + ".", detail)
    needs = sum((Counter(view.lacking()) for view in fresh), Counter())
    not_run = sum(len(view.not_run()) for view in fresh)
    unrecorded = sum(len(view.unrecorded()) for view in fresh)
    machine = "the test machine{} lacked" if single else "no test machine{} had"
    if not passed:
        described = f" ({verdicts.describe_keys(environments, list(environments))})"
        lacked = f"; {_lacked(needs)}, which {machine.format(described)}" if needs else ""
        text = f"Not verified: no block of this page ran in the recorded test runs{lacked}."
        return Status("unverified", text, detail)
    state, lead = ("partial", "Partly verified") if unrecorded else ("verified", "Verified")
    text = f"{lead} {_verified_where(fresh)}"
    if len(views) > 1:
        text += f" on {plural(len(fresh), 'page')}"
    extras = []
    if needs:
        extras.append(f"{_lacked(needs)}, which {machine.format('')}")
    if unrecorded:
        extras.append(f"{unrecorded} not run by the recorded test runs")
    if not_run:
        extras.append(f"{not_run} shown but not run")
    if pages_without_result:
        extras.append(f"{plural(pages_without_result, 'page')} not verified in this build")
    text += ("; " + "; ".join(extras) if extras else "") + "."
    return Status(state, text, detail)


def section_status(views: list[PageView]) -> Status | None:
    """The summed status of a section's pages (one view each); None when there are none."""
    fresh = [view for view in views if view.environments]
    return status_of(fresh, pages_without_result=len(views) - len(fresh)) if views else None


def unverified_reason(view: PageView, line: int) -> str | None:
    """Why block ``line`` does not count as verified, or None: verified means a recorded run
    of the page as it is now passed it, and no run failed it (the badges' verdicts)."""
    if not view.environments:
        return status_of([view]).text
    verdict = verdicts.block_verdict(view, line)
    if verdict is not None and verdict[0] != "verified":
        return verdict[1]
    if line not in view.verified():
        return "Not verified: no recorded run of this page ran this block."
    return None
