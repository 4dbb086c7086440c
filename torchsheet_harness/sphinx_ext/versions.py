"""What each block ran on, and what changed between the torch versions, read from the results
files (no Sphinx here: pure functions of the page views and the recorded API facts). For a block:
the versions it passed on and where it was skipped (:func:`ran_on`), the examples that printed
differently on some version (:func:`differences`), and what changed in the torch names it uses
(:func:`api_changes`: new, removed, signature changed, deprecated; read, not run)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .. import results
from ..matrix import version_key
from ..results import Environment, Results
from .verdicts import PageView, describe_keys, join


def ordered(environments: dict[str, Environment]) -> list[str]:
    """Environment keys, CPU runs first, each device's by torch version."""
    return sorted(
        environments,
        key=lambda k: (environments[k].get("gpus", 0), version_key(environments[k]["torch"])),
    )


def ran_on(view: PageView, line: int) -> str:
    """'torch 2.13.0, 2.14.1 and 2.15.0 on CPU', then where it was skipped; '' for none."""
    parts = []
    if passed := view.where(line, "passed"):
        parts.append(
            describe_keys(view.environments, ordered({k: view.environments[k] for k in passed}))
        )
    if skipped := view.where(line, "skipped"):
        parts.append(f"skipped with {describe_keys(view.environments, skipped)}")
    return "; ".join(parts)


def differences(view: PageView, line: int) -> dict[str, dict[str, str]]:
    """Example line → environment → what it printed, for each example of block ``line`` whose
    output differs between the environments that passed the whole block."""
    passed = ordered({k: view.environments[k] for k in view.where(line, "passed")})
    entries = view.blocks.get(line, {})
    printed = {key: entries[key].get("printed", {}) for key in passed}
    examples = sorted({example for texts in printed.values() for example in texts}, key=int)
    found = {}
    for example in examples:
        texts = {key: printed[key].get(example, "") for key in passed}
        if len(set(texts.values())) > 1:
            found[example] = texts
    return found


@dataclass(frozen=True)
class Change:
    """``name`` ``what`` ('new', 'removed', 'signature changed', 'deprecated') in ``version``."""

    name: str
    what: str
    version: str
    detail: str = ""


def _fact_changes(name: str, facts: list[tuple[str, dict]]) -> list[Change]:
    changes = []
    for (_, before), (version, after) in zip(facts, facts[1:], strict=False):
        if before.get("missing") and not after.get("missing"):
            changes.append(Change(name, "new", version))
        elif after.get("missing") and not before.get("missing"):
            changes.append(Change(name, "removed", version))
        elif before.get("signature") != after.get("signature") and not after.get("missing"):
            detail = f"{before.get('signature', '?')} → {after.get('signature', '?')}"
            changes.append(Change(name, "signature changed", version, detail))
        if after.get("deprecated") and not before.get("deprecated"):
            changes.append(Change(name, "deprecated", version, str(after["deprecated"])))
    return changes


def api_changes(found: Iterable[Results], names: Iterable[str] | None = None) -> list[Change]:
    """What changed, from one torch version to the next, in ``names`` (default: every name the
    runs recorded), compared among the CPU runs (one per torch release)."""
    by_version: dict[str, dict] = {}
    for data in found:
        environment = data["environment"]
        if environment.get("gpus", 0) == 0 and data.get("api"):
            release = results.describe_torch(environment).split("+")[0]
            by_version.setdefault(release, {}).update(data["api"])
    versions = sorted(by_version, key=version_key)
    wanted = sorted(
        set(names) if names is not None else set().union(*map(set, by_version.values()))
    )
    changes = []
    for name in wanted:
        facts = [(v, by_version[v][name]) for v in versions if name in by_version[v]]
        changes += _fact_changes(name, facts)
    return changes


def in_words(changes: list[Change]) -> str:
    """'API: `torch.a` new in 2.14.1; `torch.b` deprecated in 2.15.0'."""
    words = [f"`{c.name}` {c.what} in {c.version}" for c in changes]
    return f"API read from each torch (not run): {join(words)}." if words else ""
