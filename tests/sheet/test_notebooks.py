"""Every page's notebook (torchsheet_harness/exports/notebook.py) as a reader opens it. On every
leg: it validates (nbformat 4.5), and its code cells, less the install, helper and launch cells,
are exactly the code the page run executed, in order. On the default leg: it runs in a fresh
kernel (nbclient; forked, tests/support/forked_kernels.py says why) and each cell shows the output
the page shows. A launch cell whose block the page run launched is not launched again: its script
and its command are checked to be the harness's (the command evaluated in the notebook's kernel);
one notebook per kind of launch (torchrun with 2 and with 4 ranks, a script in a fresh process)
runs its launch cells for real. Cells that need a GPU run where one is (``-m gpu``)."""

import json
import re
import tempfile
from pathlib import Path

import nbformat
import pytest
import torch
from forked_kernels import KernelZygote, forked_kernel_manager
from nbclient import NotebookClient

from torchsheet_harness import launching
from torchsheet_harness.exports.notebook import (
    HELPER,
    INSTALL,
    LAUNCH,
    NEEDS_GPU,
    PROMPT_ECHO,
    Verification,
    launching_source,
    notebook_of,
)  # fmt: skip
from torchsheet_harness.exports.site_map import site_map
from torchsheet_harness.locations import page_files
from torchsheet_harness.matrix import release, torch_versions
from torchsheet_harness.pages.page import read_page
from torchsheet_harness.run.collect import page_sybil
from torchsheet_harness.run.outputs import matches
from torchsheet_harness.run.regions import block_of

pytestmark = pytest.mark.torchsheet_inputs("docs", "snippets")
DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = page_files(DOCS)
SITE = site_map(DOCS)
VERIFIED = Verification(torch=torch_versions())
DEFAULT_LEG = release(torch.__version__) == torch_versions()[0]
#: A warning as Python writes it to stderr: 'file:line: Category: message' (the message may
#: go on over more lines), then its source line, indented.
_WARNING = re.compile(r"^\S.*?:\d+: (?P<category>\w*Warning): (?P<message>.*)$")
DEPRECATIONS = ("DeprecationWarning", "FutureWarning")


def printed_deprecations(stderr: str) -> list[str]:
    """The deprecations in ``stderr``, each as the harness prints a block's own: 'Category:
    message' (other warnings, which the harness does not show, left out)."""
    found: list[list[str]] = []
    for line in stderr.splitlines():
        if match := _WARNING.match(line):
            found.append([match["category"], match["message"]])
        elif found and not line.startswith("  "):
            found[-1][1] += "\n" + line
        elif found:
            found.append([])  # the source line ends the message
    return [f"{w[0]}: {w[1]}" for w in found if w and w[0] in DEPRECATIONS]


def docname(page: Path) -> str:
    return page.relative_to(DOCS).with_suffix("").as_posix()


def notebook(page: Path) -> dict:
    return notebook_of(read_page(page), SITE.site(docname(page)), VERIFIED)


def tags(cell: dict) -> set[str]:
    return set(cell["metadata"].get("tags", []))


def executed_code(page: Path) -> list[tuple[int, str]]:
    """(block line, code) of each example the page run executes, in order: a doctest example's
    source, a plain block's code, a launched block's script."""
    found = []
    for example in page_sybil(DOCS).parse(page).examples():
        block = block_of(example.region)
        if block is None or block.not_run is not None or block.requirement.slurm:
            continue
        parsed = example.parsed
        code = getattr(parsed, "source", None) or (block.code if parsed is None else str(parsed))
        found.append((block.line, code))
    return found


def notebook_code(cells: list[dict]) -> list[tuple[int, str]]:
    """(block line, code) of each code cell that is the page's (a written script: its text)."""
    found = []
    for cell in cells:
        if cell["cell_type"] != "code" or tags(cell) & {INSTALL, HELPER, LAUNCH}:
            continue
        source = cell["source"]
        if source.startswith("%%writefile "):
            source = source.split("\n", 1)[1]
        found.append((cell["metadata"]["torchsheet"]["block"], source))
    return found


@pytest.mark.parametrize("page", PAGES, ids=docname)
def test_the_notebook_validates_and_holds_the_code_the_run_executed(page: Path) -> None:
    document = notebook(page)
    nbformat.validate(nbformat.from_dict(document))
    ran = _by_block(executed_code(page))
    shown = _by_block(notebook_code(document["cells"]))
    assert shown == ran


def _by_block(parts: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The parts joined per block (cells and examples split a block differently)."""
    merged: dict[int, list[str]] = {}
    for line, code in parts:
        merged.setdefault(line, []).append(code.strip("\n"))
    return [(line, "\n".join(codes)) for line, codes in merged.items()]


def shown(outputs: list[dict], deprecations: bool = False) -> str:
    """What a cell shows, as the page writes it: printed text, the value, the exception line;
    warnings on stderr only for a block that shows its deprecation (as the harness prints it)."""
    parts = []
    for output in outputs:
        kind = output["output_type"]
        if kind == "stream" and output["name"] == "stdout":
            parts.append(output["text"])
        elif kind == "stream" and deprecations:
            parts += [f"{warning}\n" for warning in printed_deprecations(output["text"])]
        elif kind in ("execute_result", "display_data"):
            parts.append(output["data"].get("text/plain", "") + "\n")
        elif kind == "error":  # the class without its module: the page may name it, Jupyter not
            name = output["ename"].rpartition(".")[2]
            parts.append(f"{name}: {output['evalue']}\n" if output["evalue"] else f"{name}\n")
    return "".join(parts)


#: The notebook that runs its launch cells of each kind for real: the page with fewest of them.
def _launching(kind: str) -> Path:
    def count(page: Path) -> int:
        cells = notebook(page)["cells"]
        return sum(kind in cell["source"] for cell in cells if LAUNCH in tags(cell))

    candidates = [page for page in PAGES if count(page)]
    return min(candidates, key=lambda page: (count(page), str(page)))


LAUNCHING = {
    "torchrun with 2 ranks": "nproc=2, gpus=0)",
    "torchrun with 4 ranks": "nproc=4, gpus=0)",
    "a script in a fresh process": "python_script(",
}


class PageNotebook(NotebookClient):
    """Runs a page's notebook, each cell at most once in all the tests: cells that need a GPU only
    where one is; launch cells not run (their script and command checked), or, with
    ``launched``, only the launch cells of that kind (and the helper and script cells they need:
    the page's other cells are the first run's)."""

    def __init__(self, document, page: Path, launched: str = "", **kwargs) -> None:
        super().__init__(document, **kwargs)
        self.page, self.launched, self.failures, self.ran = page, launched, [], 0
        self.gpu = torch.cuda.is_available()
        self.scripts: dict[str, str] = {}

    async def async_execute_cell(self, cell, cell_index, execution_count=None, store_history=True):
        if cell.cell_type != "code":
            return cell
        kinds = tags(cell)
        expected = shown(cell.outputs)
        line = cell.metadata.get("torchsheet", {}).get("line", 0)
        where = f"{self.page.relative_to(DOCS.parent)}:{line}"
        run = super().async_execute_cell
        if NEEDS_GPU in kinds and not self.gpu or INSTALL in kinds:
            return cell
        if HELPER in kinds:
            return await run(cell, cell_index, execution_count, store_history)
        if cell.source.startswith("%%writefile "):  # it shows "Writing name", the page nothing
            name = cell.source.split("\n", 1)[0].split()[1]
            self.scripts[name] = cell.source.split("\n", 1)[1]
            return await run(cell, cell_index, execution_count, store_history)
        launches = LAUNCH in kinds and bool(self.launched) and self.launched in cell.source
        if LAUNCH in kinds and not launches:
            if not self.launched:
                await self._check_launch(cell, where)
            return cell
        if self.launched and not launches:
            return cell  # a page cell: the first run's
        cell = await run(cell, cell_index, execution_count, store_history)
        self.ran += 1
        got = shown(cell.outputs, deprecations="Warning:" in expected)
        if (expected or got) and not matches(expected, got):
            self.failures.append(f"{where}: the cell shows\n{got}but the page shows\n{expected}")
        return cell

    async def _check_launch(self, cell, where: str) -> None:
        """A launch cell not run again: it writes the block's code and runs the harness's
        command (asked of the kernel, where the helper cell defined it)."""
        call = re.fullmatch(r"(torchrun|python_script)\('([^']+)'(?:, nproc=(\d+), gpus=(\d+))?\)",
                            cell.source)  # fmt: skip
        if call is None:
            self.failures.append(f"{where}: a launch cell the check cannot read: {cell.source}")
            return
        kind, script, nproc, _ = call.groups()
        if script not in self.scripts:
            self.failures.append(f"{where}: {script} is launched but no cell writes it")
        probe = (
            f"torchrun_argv({script!r}, {nproc}, 'logs')" if kind == "torchrun"
            else f"script_argv({script!r})"
        )  # fmt: skip
        self._printed = ""
        reply = await self.kc._async_execute_interactive(  # noqa: SLF001
            f"import json; print(json.dumps({probe}))", output_hook=self._hook, timeout=60
        )
        harness = (
            launching.torchrun_argv(script, int(nproc), "logs") if kind == "torchrun"
            else launching.script_argv(script)
        )  # fmt: skip
        if reply["content"]["status"] != "ok" or json.loads(self._printed or "null") != harness:
            self.failures.append(
                f"{where}: the notebook launches {self._printed}, the harness {harness}"
            )

    _printed = ""

    def _hook(self, message) -> None:
        content = message["content"]
        if message["msg_type"] == "stream" and content["name"] == "stdout":
            self._printed += content["text"]


@pytest.fixture(scope="module")
def zygote():
    forks = KernelZygote()
    yield forks
    forks.close()


def run_notebook(page: Path, zygote: KernelZygote, launched: str = "") -> PageNotebook:
    document = nbformat.from_dict(notebook(page))
    helper = [cell for cell in document.cells if HELPER in tags(cell)]
    assert all(cell.source in (PROMPT_ECHO, launching_source()) for cell in helper)
    with tempfile.TemporaryDirectory(prefix="torchsheet-notebook-") as cwd:
        client = PageNotebook(
            document, page, launched, km=forked_kernel_manager(zygote), timeout=180,
            resources={"metadata": {"path": cwd}},
        )  # fmt: skip
        client.execute(cwd=cwd, cleanup_kc=True)  # its kernel ends with it: nbclient's km is ours
    return client


@pytest.mark.skipif(not DEFAULT_LEG, reason=f"runs on the default leg, torch {torch_versions()[0]}")
@pytest.mark.parametrize("page", PAGES, ids=docname)
def test_the_notebook_runs_and_shows_what_the_page_shows(page: Path, zygote) -> None:
    client = run_notebook(page, zygote)
    assert not client.failures, "\n".join(client.failures)


@pytest.mark.skipif(not DEFAULT_LEG, reason=f"runs on the default leg, torch {torch_versions()[0]}")
@pytest.mark.parametrize("kind", LAUNCHING, ids=list(LAUNCHING))
def test_a_notebook_launches_as_the_tests_do(kind: str, zygote) -> None:
    page = _launching(LAUNCHING[kind])
    client = run_notebook(page, zygote, launched=LAUNCHING[kind])
    assert client.ran and not client.failures, "\n".join(client.failures)


GPU_PAGES = [page for page in PAGES if any(NEEDS_GPU in tags(c) for c in notebook(page)["cells"])]


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA, found 0 CUDA GPUs")
@pytest.mark.parametrize("page", GPU_PAGES, ids=docname)
def test_a_gpu_pages_notebook_runs_its_gpu_cells(page: Path, zygote) -> None:
    """Where a GPU run happens (nox -s gpu): the notebook again, its GPU cells run too."""
    client = run_notebook(page, zygote)
    assert client.gpu and not client.failures, "\n".join(client.failures)
