"""Results files: what one test environment verified, per page and per block.

The pytest plugin (:mod:`.pytest_plugin.recorder`) writes them through this module and the
Sphinx extension (:mod:`.sphinx_ext`) reads them through this module, which imports neither.

One file per environment (torch version, CPU or CUDA device, Python), named by
:func:`environment_key`, e.g. ``torch-2.13.0+cpu-cpu-py3.11.json``. Format (``SCHEMA``,
checked on read and on write; a file of another schema counts as none)::

    {"schema": 3,
     "environment": {"key": ..., "torch": "2.13.0+cpu", "cuda": null, "device": "CPU",
                     "gpus": 0, "python": "3.11.7"},
     "last_run": {"args": [...], "finished": "2026-01-01 12:00 UTC"},
     "pages": {"tensors/creating.md": {"sha256": ..., "reuse": "<digest>", "finished": ...,
               "errors": 0,
               "blocks": {"12": {"end": 20, "outcome": "passed", "seconds": 0.41},
                          "40": {"end": 44, "requires": {"gpus": 1, "torchrun": 0,
                                                         "slurm": false},
                                 "outcome": "skipped", "reason": "needs CUDA, found 0 CUDA GPUs"},
                          "50": {"end": 53, "not_run": "a shell command", "outcome": "skipped",
                                 "reason": "not run: a shell command"},
                          "60": {"end": 66}}}},
     "test_files": {"tests/sheet/test_multinode.py": {"reuse": "<digest>", "finished": ...}}}

Every block the page runs or exempts has an entry, keyed by its first line (its opening fence),
with ``end``, its last line; ``outcome`` only when this run ran it whole (a run of part of a
page: ``-k``, ``-m gpu``). ``requires`` is the block's requirement as data
(``Requirement(**requires)``; absent for a CPU block). ``seconds``: what a block's examples
took (setup, call and teardown summed); they feed the xdist schedule. ``reuse``: what the page's
recorded pass depends on, written only by a run that ran the page whole (:mod:`.reuse_key`;
``--torchsheet-reuse`` compares it). ``test_files``: the last pass of each sheet-side test file
(:mod:`.pytest_plugin.file_reads`). A later run of the same environment on the same page source
adds its blocks' outcomes to the page's entry. Where a run writes and what the docs build reads:
:mod:`.results_paths`. The ``sha256`` of the page source that ran (:func:`page_digest`) lets the
build drop an entry whose page changed since: a committed file cannot vouch for an edited page.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

SCHEMA = 3
OUTCOMES = ("failed", "errors", "skipped", "passed")  # worst first


class Environment(TypedDict, total=False):
    """Where a run ran: ``key`` names its file (see :func:`environment_key`)."""

    key: str
    torch: str  # torch.__version__
    cuda: str | None  # torch.version.cuda: None for a CPU build
    device: str  # 'CPU', or the name of CUDA device 0
    gpus: int
    python: str


class Requires(TypedDict):
    """What a block needs, as :class:`~.pages.requirements.Requirement`'s fields."""

    gpus: int
    torchrun: int
    slurm: bool


class BlockEntry(TypedDict, total=False):
    end: int  # the block's last line (its closing fence)
    outcome: str  # one of OUTCOMES; absent: this run did not run the block
    reason: str  # why it was skipped
    requires: Requires  # for a block gated on hardware or a launcher
    not_run: str  # the reason of its '% not-run:' exemption
    seconds: float  # the block's examples, setup to teardown


class PageEntry(TypedDict, total=False):
    sha256: str | None  # of the page source that ran
    reuse: str  # one digest of what a whole-page pass depends on (:mod:`.reuse_key`)
    finished: str
    errors: int  # collection errors: the page could not be turned into examples
    blocks: dict[str, BlockEntry]  # the line of the block's opening fence -> its entry


class _Required(TypedDict):
    schema: int
    environment: Environment
    last_run: dict[str, Any]
    pages: dict[str, PageEntry]


class Results(_Required, total=False):
    test_files: dict[str, dict[str, Any]]  # sheet test file -> {"reuse", "finished"}


@dataclass(frozen=True)
class Outcome:
    """One report about a block: passed, failed, errors or skipped (with why)."""

    outcome: str
    reason: str = ""
    requires: str = ""  # the requirement label, for a block gated on hardware
    not_run: bool = False  # exempted with '% not-run:'
    seconds: float | None = None  # the whole block's, once known


def block_outcome(outcomes: Iterable[Outcome]) -> Outcome | None:
    """A block's outcome: the worst of its examples' (a block holds many >>> lines)."""
    return min(outcomes, key=lambda result: OUTCOMES.index(result.outcome), default=None)


def block_entry(outcome: Outcome) -> BlockEntry:
    entry = BlockEntry(outcome=outcome.outcome)
    if outcome.outcome == "skipped":
        entry["reason"] = outcome.reason
        if outcome.not_run:
            entry["not_run"] = True
        elif outcome.requires:
            entry["requires"] = outcome.requires
    if outcome.seconds is not None:
        entry["seconds"] = round(outcome.seconds, 3)
    return entry


def page_entry(
    blocks: dict[int, Outcome], digest: str | None, finished: str, errors: int = 0
) -> PageEntry:
    """The entry of a page whose blocks (by line) ended as ``blocks``; ``errors``: collection."""
    return PageEntry(
        sha256=digest,
        finished=finished,
        errors=errors,
        blocks={str(line): block_entry(blocks[line]) for line in sorted(blocks)},
    )


def page_digest(path: str | os.PathLike[str]) -> str:
    """The sha256 of a page's source, as the results file records it."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# ---------------------------------------------------------------------------------------------
# Environments


def environment_key(environment: Environment) -> str:
    """'torch-2.13.0+cpu-cpu-py3.11', 'torch-2.11.0+cu130-nvidia-h200-py3.12': the file's name."""
    gpus = environment.get("gpus", 0)
    device = environment.get("device", "CPU")
    where = f"{gpus}x-{device}" if gpus > 1 else device
    python = ".".join(environment.get("python", "").split(".")[:2])
    raw = f"torch-{environment.get('torch', '')}-{where}-py{python}"
    return re.sub(r"[^a-z0-9.+]+", "-", raw.lower()).strip("-")


def describe_device(environment: Environment) -> str:
    """'CPU', 'NVIDIA H200', '2 × NVIDIA H200'."""
    gpus = environment.get("gpus", 0)
    device = environment.get("device", "?")
    return f"{gpus} × {device}" if gpus > 1 else device


def describe_torch(environment: Environment) -> str:
    """The torch version as a reader would install it: '+cpu' says nothing next to 'on CPU'."""
    version = environment.get("torch", "?")
    return version.removesuffix("+cpu") if not environment.get("gpus") else version


def describe(environment: Environment) -> str:
    """'torch 2.13.0 on CPU', 'torch 2.11.0+cu130 on NVIDIA H200'."""
    return f"torch {describe_torch(environment)} on {describe_device(environment)}"


# ---------------------------------------------------------------------------------------------
# Reading and writing


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
    if not isinstance(data.get("pages"), dict) or not isinstance(data.get("environment"), dict):
        return None
    data["environment"].setdefault("key", environment_key(data["environment"]))
    return data


def read_all(paths: Iterable[Path]) -> list[Results]:
    """Every results file among ``paths`` (files, and the ``*.json`` of folders), in path order."""
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.glob("*.json")) if path.is_dir() else [path])
    found = (read_results(file) for file in dict.fromkeys(files))
    return [data for data in found if data is not None]


def merge_page(previous: PageEntry | None, new: PageEntry) -> PageEntry:
    """``new`` added to ``previous`` when both ran the same page source; else ``new`` alone."""
    if previous is None or previous.get("sha256") != new.get("sha256"):
        return new
    blocks = {**previous.get("blocks", {}), **new.get("blocks", {})}
    merged = PageEntry(**{**previous, **new})
    merged["blocks"] = dict(sorted(blocks.items(), key=lambda item: int(item[0])))
    if "reuse" not in new:  # a partial run: the blocks no longer all ran with one set of inputs
        merged.pop("reuse", None)
    return merged


def write_results(
    path: Path,
    environment: Environment,
    pages: dict[str, PageEntry],
    run: dict[str, Any],
    tests: dict[str, float] | None = None,
    test_files: dict[str, dict[str, Any]] | None = None,
) -> None:
    """Merge ``pages``, ``tests`` and ``test_files`` into the file at ``path``, atomically.

    A file of another environment at ``path`` is replaced, never mixed with this one.
    """
    environment = Environment(**{**environment, "key": environment_key(environment)})
    previous = read_results(path)
    if previous is None or previous["environment"].get("key") != environment["key"]:
        previous = None
    previous_pages = previous["pages"] if previous else {}
    merged = dict(previous_pages)
    for page, entry in pages.items():
        merged[page] = merge_page(previous_pages.get(page), entry)
    data = Results(
        schema=SCHEMA, environment=environment, last_run=run, pages=dict(sorted(merged.items()))
    )
    if recorded_tests := {**(previous or {}).get("tests", {}), **(tests or {})}:
        data["tests"] = dict(sorted(recorded_tests.items()))
    if recorded_files := {**(previous or {}).get("test_files", {}), **(test_files or {})}:
        data["test_files"] = dict(sorted(recorded_files.items()))
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(temporary, path)
