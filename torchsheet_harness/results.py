"""The results file: what a test run verified, per page, in code blocks.

The pytest plugin (:mod:`.pytest_plugin.recorder`) writes it through this module and the Sphinx
extension (:mod:`.sphinx_ext.status`) reads it through this module, which imports neither.

Format (``SCHEMA``, checked on read and on write; a file of another schema counts as none)::

    {"schema": 1, "last_run": {"args": [...], "torch": ..., ...},
     "pages": {"tensors/creating.md": PageEntry, ...}}

Path, one rule for both sides (:func:`results_path`): an explicit option (pytest's
``--torchsheet-results``, Sphinx's ``torchsheet_results_file``), else ``$TORCHSHEET_RESULTS``,
else ``docs/_build/results.json``. A relative option is taken from the option's own base (the
working directory for pytest, the docs folder for Sphinx), a relative ``$TORCHSHEET_RESULTS``
from the working directory. An empty value means no file: nothing written, nothing read.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

SCHEMA = 1
RESULTS_ENV = "TORCHSHEET_RESULTS"
DEFAULT_PATH = Path("_build", "results.json")  # under the docs folder
OUTCOMES = ("failed", "errors", "skipped", "passed")  # worst first


class PageEntry(TypedDict, total=False):
    """One page's result: counts in blocks, and the run (torch, device, ...) that produced it."""

    sha256: str | None  # of the page source that ran (see :func:`page_digest`)
    passed: int
    failed: int
    errors: int
    skipped: int
    needs_hardware: dict[str, int]  # requirement label -> blocks skipped for lack of it
    not_run: int  # blocks exempted with '% not-run:'
    skip_reasons: dict[str, int]
    torch: str
    device: str
    python: str
    finished: str


class Results(TypedDict):
    schema: int
    last_run: dict[str, Any]
    pages: dict[str, PageEntry]


@dataclass(frozen=True)
class Outcome:
    """One report about a block: passed, failed, errors or skipped (with why)."""

    outcome: str
    reason: str = ""
    requires: str = ""  # the requirement label, for a block gated on hardware
    not_run: bool = False  # exempted with '% not-run:'


def block_outcome(outcomes: Iterable[Outcome]) -> Outcome | None:
    """A block's outcome: the worst of its examples' (a block holds many >>> lines)."""
    return min(outcomes, key=lambda result: OUTCOMES.index(result.outcome), default=None)


def page_entry(
    blocks: list[Outcome], digest: str | None, environment: dict[str, str], errors: int = 0
) -> PageEntry:
    """The entry of a page whose blocks ended as ``blocks``; ``errors``: collection errors."""
    counts = Counter(block.outcome for block in blocks)
    skipped = [block for block in blocks if block.outcome == "skipped"]
    needs = Counter(block.requires for block in skipped if block.requires and not block.not_run)
    return PageEntry(
        sha256=digest,
        passed=counts["passed"],
        failed=counts["failed"],
        errors=counts["errors"] + errors,
        skipped=counts["skipped"],
        needs_hardware=dict(needs),
        not_run=sum(block.not_run for block in skipped),
        skip_reasons=dict(Counter(block.reason for block in skipped)),
        **environment,
    )


def page_digest(path: str | os.PathLike[str]) -> str:
    """The sha256 of a page's source, as the results file records it."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def results_path(option: str | None, *, docs: Path, option_base: Path | None = None) -> Path | None:
    """The results file (see the module docstring); None when an empty value disables it."""
    if option is not None:
        return Path(option_base or Path.cwd(), option) if option else None
    value = os.environ.get(RESULTS_ENV)
    if value is not None:
        return Path(value).absolute() if value else None
    return docs / DEFAULT_PATH


def read_results(path: Path | None) -> Results | None:
    """The file's content, or None when there is none, it is unreadable or of another schema."""
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        return None
    return data if isinstance(data.get("pages"), dict) else None


def write_results(path: Path, pages: dict[str, PageEntry], run: dict[str, Any]) -> None:
    """Merge ``pages`` into the file at ``path`` (other pages keep their entries), atomically."""
    previous = read_results(path)
    merged = {**(previous["pages"] if previous else {}), **pages}
    data = Results(schema=SCHEMA, last_run=run, pages=dict(sorted(merged.items())))
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(temporary, path)
