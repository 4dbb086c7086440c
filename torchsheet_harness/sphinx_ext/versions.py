"""What each block ran on, and what changed between the torch versions, read from the results
files (no Sphinx here: pure functions of the page views and the recorded API facts). For a block:
the versions it passed on and where it was skipped (:func:`ran_on`), the examples that printed
differently on some version (:func:`differences`), and what changed in the torch names it uses
(:func:`api_changes`: new, removed, signature changed, deprecated; read, not run)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .. import results
from ..matrix import version_key
from ..results import Environment, Results
from .verdicts import PageView, describe_keys, join

#: What differs from run to run or from build to build, not between torch versions: left out
#: before comparing (an address, a process id, a port, a time, a file's path or source line).
NOISE = [
    (re.compile(r"0x[0-9a-f]+"), "0x…"),
    (re.compile(r"(pid(?:\(s\))?:?|process) \d+"), r"\1 …"),
    (re.compile(r"(\", line )\d+"), r"\1…"),
    (re.compile(r"(port[:=]? ?|MASTER_PORT=|127\.0\.0\.1\]?[:,] ?|localhost[:,] ?)\d+"), r"\1…"),
    (re.compile(r"TORCHELASTIC_RUN_ID=\S+"), "TORCHELASTIC_RUN_ID=…"),
    (re.compile(r"\d{4}-\d\d-\d\d[_ T]\d\d:\d\d:\d\d"), "…"),
    (re.compile(r"\d+(\.\d+)? ?(ms|s|GB/s|MB/s)\b"), r"… \2"),
    (re.compile(r"\S*/site-packages/"), "…/site-packages/"),
    (re.compile(r"\.(cpp|cc|cu|h|hpp|py):\d+"), r".\1:…"),
]


def comparable(text: str) -> str:
    """``text`` without what varies from run to run (:data:`NOISE`)."""
    for pattern, replacement in NOISE:
        text = pattern.sub(replacement, text)
    return text


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
    output differs between the environments that passed the whole block (beyond
    :data:`NOISE`)."""
    passed = ordered({k: view.environments[k] for k in view.where(line, "passed")})
    entries = view.blocks.get(line, {})
    printed = {key: entries[key].get("printed", {}) for key in passed}
    examples = sorted({example for texts in printed.values() for example in texts}, key=int)
    found = {}
    for example in examples:
        texts = {key: printed[key].get(example, "") for key in passed}
        if len({comparable(text) for text in texts.values()}) > 1:
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
            detail = _signature_change(before.get("signature", ""), after.get("signature", ""))
            if detail is not None:  # not only its annotations
                changes.append(Change(name, "signature changed", version, detail))
        if after.get("deprecated") and not before.get("deprecated"):
            changes.append(Change(name, "deprecated", version, str(after["deprecated"])))
    return changes


def parameters(signature: str) -> list[str]:
    """The parameters of a signature's text, '(a, b: int = 1) -> None' → ['a', 'b: int = 1']."""
    inside = signature[signature.find("(") + 1 : signature.rfind(")")]
    found, depth, current = [], 0, ""
    for char in inside:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        if char == "," and depth == 0:
            found.append(current.strip())
            current = ""
        else:
            current += char
    return [part for part in [*found, current.strip()] if part]


def _bare(parameter: str) -> str:
    """A parameter without its annotation: 'b: int = 1' → 'b=1', '*args: Any' → '*args'."""
    name, _, default = comparable(parameter).partition("=")
    name = name.split(":", 1)[0].strip()
    return f"{name}={default.strip()}" if default else name


def _signature_change(before: str, after: str) -> str | None:
    """'added: y=1; removed: z' between two signatures; None when only annotations differ."""
    old, new = map(_bare, parameters(before)), map(_bare, parameters(after))
    old, new = list(old), list(new)
    added = [p for p in new if p not in old]
    removed = [p for p in old if p not in new]
    parts = [f"{what}: {', '.join(items)}" for what, items in (("added", added),
             ("removed", removed)) if items]  # fmt: skip
    return "; ".join(parts) or (None if old == new else "parameters reordered")


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
