"""Results files: what one test environment verified, per page and per block. The recorder is
the only writer, through this module; the site reads through it; neither pytest nor Sphinx is
imported. The format and the paths: MAINTAINING.md, "Results files"."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypedDict

SCHEMA = 3
OUTCOMES = ("failed", "errors", "skipped", "passed")  # worst first
RESULTS_ENV = "TORCHSHEET_RESULTS"
BUILD_DIR = Path("_build", "results")  # under the docs folder; not committed
COMMITTED_DIR = Path("_results")  # under the docs folder; committed results files


class Environment(TypedDict, total=False):
    """Where a run ran: ``key`` names its file (see :func:`environment_key`)."""

    key: str
    torch: str  # torch.__version__
    cuda: str | None  # torch.version.cuda: None for a CPU build
    device: str  # 'CPU', or the name of CUDA device 0
    gpus: int
    python: str


class BlockEntry(TypedDict, total=False):
    end: int  # the block's last line (its output block's, when it has one)
    requires: dict[str, Any]  # the Requirement as data; absent for a CPU block
    not_run: str  # the reason of its '% not-run:' exemption
    outcome: str  # one of OUTCOMES; absent: this environment did not run it whole
    reason: str  # why it was skipped
    seconds: float  # the block's examples, setup to teardown
    printed: dict[str, str]  # example's first line -> what its code printed (where not empty)
    uses: list[str]  # the torch names its code uses (their facts: ``Results.api``)


class PageEntry(TypedDict, total=False):
    sha256: str  # of the page source that ran
    reuse: str  # the inputs of a whole-page pass (:mod:`.reuse_key`)
    finished: str
    errors: int  # collection errors: the page could not be turned into examples
    blocks: dict[str, BlockEntry]  # the line of the block's opening fence -> its entry


class Results(TypedDict, total=False):
    schema: int
    environment: Environment
    last_run: dict[str, Any]
    pages: dict[str, PageEntry]
    test_files: dict[str, dict[str, str]]  # sheet test file -> its pass's reuse digest and date
    api: dict[str, dict[str, Any]]  # torch name -> its signature, deprecation, or missing


def page_digest(text: str) -> str:
    """The sha256 of a page's source text (as read, universal newlines), as ``sha256`` holds."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def current_pages(data: Results, docs: Path) -> dict[str, PageEntry]:
    """The page entries of ``data`` recorded on the source each page under ``docs`` has now."""
    found = {}
    for page, entry in data["pages"].items():
        source = docs / page
        if source.is_file() and entry.get("sha256") == page_digest(source.read_text("utf-8")):
            found[page] = entry
    return found


def worst(outcomes: Iterable[str]) -> str | None:
    """A block's outcome: the worst of its examples' (a block holds many >>> lines)."""
    return min(outcomes, key=OUTCOMES.index, default=None)


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


def output_path(
    option: str | None, *, docs: Path, environment: Environment, option_base: Path | None = None
) -> Path | None:
    """The file a run in ``environment`` writes; None: none."""
    if option is not None:
        value: Path | None = Path(option_base or Path.cwd(), option) if option else None
    elif (env := os.environ.get(RESULTS_ENV)) is not None:
        value = Path(env).absolute() if env else None
    else:
        value = docs / BUILD_DIR
    if value is None or value.suffix == ".json":
        return value
    return value / f"{environment_key(environment)}.json"


def input_paths(option: str | None, *, docs: Path, option_base: Path | None = None) -> list[Path]:
    """The files and folders the docs build reads."""
    if option is not None:
        base = option_base or Path.cwd()
        return [Path(base, part) for part in option.split(os.pathsep) if part]
    env = os.environ.get(RESULTS_ENV)
    if env is not None:
        return [Path(part).absolute() for part in env.split(os.pathsep) if part]
    return [docs / BUILD_DIR, docs / COMMITTED_DIR]


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
    """``new`` over ``previous`` of the same page source (a block not run keeps its outcome)."""
    if previous is None or previous.get("sha256") != new.get("sha256"):
        return new
    blocks = dict(new.get("blocks", {}))
    for line, entry in previous.get("blocks", {}).items():
        if "outcome" not in blocks.get(line, {}) and "outcome" in entry:
            blocks[line] = entry
    merged = PageEntry(**{**previous, **new, "blocks": blocks})
    if "reuse" not in new:  # a partial run: the blocks no longer all ran with one set of inputs
        merged.pop("reuse", None)
    return merged


def write_results(
    path: Path,
    environment: Environment,
    pages: dict[str, PageEntry],
    run: dict[str, Any],
    test_files: dict[str, dict[str, str]] | None = None,
    api: dict[str, dict[str, Any]] | None = None,
) -> None:
    """Merge ``pages``, ``test_files`` and ``api`` into the file at ``path``, atomically
    (replacing another environment's file, never mixing)."""
    environment = Environment(**{**environment, "key": environment_key(environment)})
    previous = read_results(path)
    if previous is None or previous["environment"].get("key") != environment["key"]:
        previous = Results()
    merged = dict(previous.get("pages", {}))
    for page, entry in pages.items():
        merged[page] = merge_page(merged.get(page), entry)
    data = Results(
        schema=SCHEMA, environment=environment, last_run=run, pages=dict(sorted(merged.items()))
    )
    if recorded_files := {**previous.get("test_files", {}), **(test_files or {})}:
        data["test_files"] = dict(sorted(recorded_files.items()))
    if recorded_api := {**previous.get("api", {}), **(api or {})}:
        data["api"] = dict(sorted(recorded_api.items()))
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(temporary, path)
