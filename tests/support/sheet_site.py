"""Planted sites built in-process by ``sphinx.testing``: pages written for a test, the extension,
and results files of schema 3. Built again in the same folder, a site builds incrementally, as
``nox -s docs`` does; each build is a fresh application, as each ``sphinx-build`` is."""

import io
import json
from dataclasses import dataclass
from pathlib import Path

from sphinx.testing.util import SphinxTestApp

from torchsheet_harness.results import Environment, environment_key, page_digest

CONF = """\
extensions = ['myst_parser', 'torchsheet_harness.sphinx_ext']
torchsheet_results = 'results'
"""
CPU_213 = Environment(torch="2.13.0+cpu", cuda=None, device="CPU", gpus=0, python="3.11.7")
CPU_214 = Environment(torch="2.14.1", cuda="13.0", device="CPU", gpus=0, python="3.11.7")
CPU_215 = Environment(torch="2.15.0+cu132", cuda="13.2", device="CPU", gpus=0, python="3.11.7")
H200 = Environment(torch="2.11.0+cu130", cuda="13.0", device="NVIDIA H200", gpus=1, python="3.12.3")
CUDA = {"gpus": 1, "torchrun": 0, "slurm": False}
PASSED = {"outcome": "passed"}
CUDA_SKIP = {"requires": CUDA, "outcome": "skipped", "reason": "needs CUDA, found 0 CUDA GPUs"}


@dataclass
class Site:
    source: Path
    warnings: str

    def html(self, page: str = "index") -> str:
        return (self.source.parent / "build" / "html" / f"{page}.html").read_text("utf-8")


def two_pages(index_body: str, page: str) -> dict[str, str]:
    """An index page holding ``index_body`` (a sheet, say) and ``page`` below it."""
    index = f"# Sheet\n\nThe sheet.\n\n{index_body}\n\n```{{toctree}}\n:hidden:\n\npage\n```\n"
    return {"index.md": index, "page.md": page}


def plant(root: Path, pages: dict[str, str], conf: str = "") -> Path:
    """Write ``pages`` (name → text; unchanged ones are left alone) and conf.py under
    ``root/src``."""
    source = root / "src"
    source.mkdir(exist_ok=True)
    (source / "conf.py").write_text(CONF + conf)
    for name, text in pages.items():
        path = source / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    return source


def build(root: Path, pages: dict[str, str] | None = None, conf: str = "") -> Site:
    """Build ``root/src`` (planting ``pages`` first, when given) into ``root/build``."""
    source = plant(root, pages, conf) if pages is not None else root / "src"
    warnings = io.StringIO()
    app = SphinxTestApp("html", srcdir=source, builddir=root / "build", warning=warnings)
    try:
        app.build()
    finally:
        app.cleanup()
    return Site(source, warnings.getvalue())


def record(
    root: Path,
    environment: Environment,
    blocks: dict[str, dict],
    page: str = "index.md",
    stale: bool = False,
    folder: str = "results",
    api: dict | None = None,
) -> None:
    """A schema-3 results file of ``environment`` for the planted ``page``: ``blocks`` by line,
    recorded on its source as it is now (unless ``stale``), with the torch names' ``api`` facts."""
    source = root / "src"
    digest = "0" * 64 if stale else page_digest((source / page).read_text(encoding="utf-8"))
    environment = Environment(**environment, key=environment_key(environment))
    entry = {"sha256": digest, "finished": "2026-01-01 00:00 UTC", "errors": 0, "blocks": blocks}
    data = {"schema": 3, "environment": environment, "last_run": {}, "pages": {page: entry}}
    if api is not None:
        data["api"] = api
    path = source / folder / f"{environment['key']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
