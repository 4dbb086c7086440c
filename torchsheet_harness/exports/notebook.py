"""A page as a Jupyter notebook (nbformat 4.5), written from the page model: its prose as
Markdown cells, each block it runs as the cells that run it (:mod:`.cells`), ``torchrun`` and
script blocks written by ``%%writefile`` and launched as the tests launch them (the helper cell is
:mod:`..launching`'s source), Slurm and not-run blocks shown as Markdown; a first cell installs a
verified torch where the kernel has none; the metadata says what the page needs and what verified
it (``metadata.torchsheet``). What it cannot express raises :class:`.prose.ExportError`."""

from __future__ import annotations

import hashlib
import inspect
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from .. import launching
from ..pages.model import Block, Page, Prose
from .cells import CodeCell, pasted_cells, stream
from .prose import Site, plain_markdown

#: Cell tags: what the tests leave out of "the code the page ran" (install, helper, launch).
INSTALL, HELPER, LAUNCH, NEEDS_GPU = (
    "torchsheet-install", "torchsheet-helper", "torchsheet-launch", "torchsheet-needs-gpu"
)  # fmt: skip
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


@dataclass(frozen=True)
class Verification:
    """What verified the page: the status line's words, the torch releases, each block's
    outcome per environment (line → key → outcome)."""

    text: str = "Not verified in this build: no test results for this page."
    torch: tuple[str, ...] = ()
    blocks: dict[int, dict[str, str]] = field(default_factory=dict)


def install_source(versions: tuple[str, ...], gpu: bool) -> str:
    """The first code cell: install the newest verified torch only where the kernel has none of
    the verified versions (a CPU page takes the CPU wheel)."""
    index = "" if gpu else f', "--index-url", "{CPU_INDEX}"'
    return "\n".join([
        "# Installs torch only where the kernel has none of the versions the page was verified on.",
        "import importlib.metadata, subprocess, sys",
        f"VERIFIED = {list(versions)!r}",
        "try:",
        '    installed = importlib.metadata.version("torch").split("+")[0]',
        "except importlib.metadata.PackageNotFoundError:",
        "    installed = None",
        "if installed not in VERIFIED:",
        f'    subprocess.check_call([sys.executable, "-m", "pip", "install", '
        f'f"torch=={{VERIFIED[-1]}}"{index}])',
    ])  # fmt: skip


#: The first helper cell: values shown as the Python prompt the page runs at shows them (every
#: expression statement's value, in a loop too, as ``repr()`` writes it), which is what the
#: page's outputs are; IPython alone shows a cell's last value, pretty-printed.
PROMPT_ECHO = """\
# Shows values as the Python prompt the page runs at does: every expression statement's value
# (in a loop too), as repr() writes it. IPython alone shows a cell's last value, pretty-printed.
import ast


class EchoAsThePrompt(ast.NodeTransformer):
    def visit_FunctionDef(self, node):  # a function's or class's body echoes nothing
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_Expr(self, node):
        hook = ast.parse("__import__('sys').displayhook", mode="eval").body
        echo = ast.Expr(ast.Call(hook, [self.generic_visit(node).value], []))
        return ast.copy_location(echo, node)


get_ipython().ast_node_interactivity = "none"
get_ipython().display_formatter.formatters["text/plain"].pprint = False
get_ipython().ast_transformers.append(EchoAsThePrompt())"""


def launching_source() -> str:
    """The helper cell of a page with launched blocks: :mod:`..launching`, as it is."""
    return inspect.getsource(launching).rstrip("\n")


def markdown(text: str) -> dict:
    return {"cell_type": "markdown", "id": "", "metadata": {}, "source": text}


def code(cell: CodeCell, block: Block | None = None) -> dict:
    """A code cell; ``block``: the page block it runs, whose first line it records."""
    where = {"block": block.line, "line": cell.line} if block else {}
    metadata: dict = {"torchsheet": where} if where else {}
    if cell.tags:
        metadata["tags"] = list(cell.tags)
    return {
        "cell_type": "code", "id": "", "metadata": metadata, "execution_count": None,
        "source": cell.source, "outputs": cell.outputs,
    }  # fmt: skip


def script_name(block: Block) -> str:
    """The file a launched or included block is written to."""
    return block.included.name if block.included else f"block_{block.line}.py"


def _fenced(block: Block, note: str) -> dict:
    language = "python" if block.is_python else block.argument
    return markdown(f"```{language}\n{block.code.rstrip()}\n```\n\n*{note}*")


def block_cells(block: Block, path: str) -> list[dict]:
    """The cells that show ``block`` as the page does and run it as the tests did."""
    requirement = block.requirement
    if block.not_run is not None:
        return [_fenced(block, f"Shown, not run by the tests: {block.not_run}.")]
    if not block.executed:
        return [_fenced(block, "An example, not run.")] if not block.is_output else []
    if requirement.slurm:
        name = script_name(block)
        return [_fenced(block, f"`{name}`: submitted with `sbatch {name}` on a Slurm cluster "
                        "(the tests run it on a private two-node cluster).")]  # fmt: skip
    tags = [NEEDS_GPU] if requirement.gpus else []
    if block.included is None and not block.launched:
        cells = pasted_cells(block, path)
        for cell in cells:
            cell.tags += tags
        return [code(cell, block) for cell in cells]
    name = script_name(block)
    write = CodeCell(f"%%writefile {name}\n{block.code.rstrip()}", block.first_code_line, [], tags)
    if requirement.torchrun:
        call = f"torchrun({name!r}, nproc={requirement.torchrun}, gpus={requirement.gpus})"
    else:
        call = f"python_script({name!r})"
    outputs = [stream(block.output)] if block.output is not None else []
    return [code(write, block), code(CodeCell(call, block.line, outputs, [LAUNCH, *tags]), block)]


def notebook_of(page: Page, site: Site, verification: Verification) -> dict:
    """The notebook of ``page`` (an nbformat 4.5 document as a dict)."""
    gpus = max((block.requirement.gpus for block in page.blocks if block.executed), default=0)
    versions = verification.torch or ()
    cells: list[dict] = []
    for part in page.parts():
        if isinstance(part, Prose):
            text = plain_markdown(part.text, part.line, page.path, site).strip()
            if text:
                cells.append(markdown(text))
        else:
            cells += block_cells(part, page.path)
    intro = markdown(
        f"*{verification.text}* This notebook is the page [{site.titles.get(site.docname, '')}]"
        f"({site.href(site.docname)}) of torchsheet: its code cells are the blocks the tests ran, "
        "in order, each with the output they checked. Cells tagged `raises-exception` show an "
        "error on purpose: run the next cell after them."
        + (f" Cells tagged `{NEEDS_GPU}` need a CUDA GPU." if gpus else "")
        + (
            f" Some need {gpus} GPUs: Kaggle's GPU T4 x2 has two, Colab's free runtime one."
            if gpus > 1
            else ""
        )
    )
    setup = [intro]
    if versions:
        setup.append(code(CodeCell(install_source(versions, gpus > 0), 0, [], [INSTALL])))
    if any(block.executed and (block.launched or block.included) for block in page.blocks):
        setup.append(code(CodeCell(launching_source(), 0, [], [HELPER])))
    setup.append(code(CodeCell(PROMPT_ECHO, 0, [], [HELPER])))  # last: it echoes a docstring
    cells[1:1] = setup  # after the title and purpose sentence
    for index, cell in enumerate(cells):
        cell["id"] = f"c{index:03d}-" + hashlib.sha256(str(cell["source"]).encode()).hexdigest()[:8]
    return {
        "nbformat": 4, "nbformat_minor": 5, "cells": cells,
        "metadata": _metadata(page, site, verification, gpus),
    }  # fmt: skip


def _metadata(page: Page, site: Site, verification: Verification, gpus: int) -> dict:
    metadata: dict = {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
        "torchsheet": {
            "page": PurePosixPath(site.docname).with_suffix(".md").as_posix(),
            "sha256": page.digest,
            "verified": verification.text,
            "torch": list(verification.torch),
            "gpus": gpus,
            "blocks": {str(line): dict(v) for line, v in sorted(verification.blocks.items())},
        },
    }
    if gpus:
        metadata["accelerator"] = "GPU"
        metadata["colab"] = {"provenance": [], "gpuType": "T4"}
        metadata["kaggle"] = {"accelerator": "nvidiaTeslaT4", "isGpuEnabled": True,
                              "isInternetEnabled": True, "language": "python",
                              "sourceType": "notebook"}  # fmt: skip
    return metadata
