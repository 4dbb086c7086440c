"""The page parser in-process, with Sybil's ``check_parser``: each page region carries its block,
a page's faults fail its collection at their page line, and a page is lexed once per process; a
block's pytest markers follow its declaration, so `pytest -m gpu` selects exactly the GPU blocks
(that they are skipped without CUDA, never passed: test_results_file.py's ``-m gpu`` run)."""

import re
import traceback

import pytest
from planted import PAGE, RECORDER, write_project
from sheet_site import build, two_pages
from sybil import Document
from sybil.testing import check_parser

from torchsheet_harness.pages import page as pages
from torchsheet_harness.pages.markers import Marker
from torchsheet_harness.pages.requirements import Requirement
from torchsheet_harness.run.regions import PageParser, PageProblems, block_of


def test_every_region_carries_its_block() -> None:
    blocks = [block_of(region) for region in PageParser()(Document(PAGE, "page.md"))]
    assert blocks[0] is blocks[1] and blocks[2] is blocks[3]  # two >>> examples, one block
    described = [(b.line, b.end, b.slug, b.requirement, b.not_run) for b in blocks[::2]]
    assert described == [
        (7, 12, "first-section", Requirement(), None),
        (16, 21, "needs-hardware", Requirement(gpus=1), None),
        (24, 26, "needs-hardware", Requirement(), "a shell command"),
    ]
    assert blocks[-1].markers == (Marker("not-run", "a shell command", 23),)


def test_a_directive_with_options_raises_at_its_page_line() -> None:
    text = (
        "# R\n\n```{code-block} python\n:caption: shifts the code\ny = 2\nraise KeyError(1)\n```\n"
    )
    with pytest.raises(KeyError) as raised:
        check_parser(PageParser(), text)
    assert traceback.extract_tb(raised.tb)[-1].lineno == 6


FAULTS = {  # name: (page, the error at its line)
    "not-run without a reason": (
        "% not-run:\n```bash\necho hi\n```\n",
        ":1: write '% not-run: <why it is not run>'",
    ),
    "dangling output": (
        "Prose.\n\n```{code-block} text\n:class: output\nhello\n```\n",
        ":3: an output block must directly follow",
    ),
    "unchecked pycon block": (
        "```python\nx = 1\n```\n\n```pycon\n>>> 1\n1\n```\n",
        ":5: code block ```pycon is neither executed nor exempted",
    ),
    "fence swallowed a heading": (
        "# T\n\n```python\nx = 1\n\n## Next\n\nProse.\n\n```python\ny = 2\n```\n",
        ":3: the block opened here contains a heading (## Next) at line 6",
    ),
    "fence swallowed a block": (
        "```python\nx = 1\n\n```{code-block} python\ny = 2\n```\n",
        ":1: the block opened here contains the opening line of another block "
        "(```{code-block} python) at line 4",
    ),
    "fence never closed": (
        "```python\nx = 1\n```\n\n```python\ny = 2\n",
        ":5: the block opened here is never closed",
    ),
    "launched block showing a deprecation": (
        "```{code-block} python\n:class: needs-torchrun-2 shows-deprecation\nx = 1\n```\n",
        ":1: shows-deprecation is for a block run in-process",
    ),
}


@pytest.mark.parametrize(("text", "message"), FAULTS.values(), ids=FAULTS)
def test_a_page_fault_is_a_parse_error_at_its_line(text: str, message: str) -> None:
    with pytest.raises(PageProblems, match=re.escape(f"page.md{message}")):
        list(PageParser()(Document(text, "page.md")))


@pytest.mark.parametrize(
    "text",
    [  # a '## ' Python comment, and an output that prints one; a Markdown example
        "# T\n\n```python\n## step one\nprint('## done')\n```\n\n"
        "```{code-block} text\n:class: output\n## done\n```\n",
        "````markdown\n## A heading\n\n```python\nx = 1\n```\n````\n",
    ],
    ids=["heading-like lines in a block", "fences and headings in a markdown example"],
)
def test_a_closed_block_may_hold_what_looks_like_a_fault(text: str) -> None:
    assert pages.page_of("page.md", text).problems == []


def test_a_page_run_and_a_docs_build_read_the_page_once(pytester, monkeypatch, tmp_path) -> None:
    """One process runs a page's tests, then builds the site from it: the page is lexed once in
    all (the site reads the same page model), and no lexer of Sybil's ever runs."""
    from sybil.parsers.markdown import lexers as markdown
    from sybil.parsers.myst import lexers as myst

    lexed, sybil_lexers = [], []
    read = pages.fences
    monkeypatch.setattr(pages, "fences", lambda text: lexed.append(1) or read(text))
    for lexer in (
        markdown.FencedCodeBlockLexer,
        markdown.RawFencedCodeBlockLexer,
        myst.DirectiveLexer,
    ):
        call = lexer.__call__
        monkeypatch.setattr(
            lexer, "__call__", lambda self, doc, c=call: sybil_lexers.append(1) or c(self, doc)
        )
    text = PAGE.replace("it is for.", f"it is for, read once ({tmp_path.name}).")
    write_project(pytester.path, {"page.md": text}, "torchsheet_harness.pytest_plugin", RECORDER)
    pytester.inline_run("-p", "no:cacheprovider", "docs").assertoutcome(passed=2, skipped=3)
    assert len(lexed) == 1
    results = pytester.path / "docs" / "_build" / "results"
    site = build(tmp_path, two_pages("", text), conf=f"torchsheet_results = {str(results)!r}\n")
    assert "Verified with torch" in site.html("page")
    assert sybil_lexers == []
    # The site's build read its own copy of the page (another path): once, for the two pages.
    assert len(lexed) == 3


#: planted's page and a block that needs two GPUs and torchrun (line 28).
MIXED = (
    PAGE + "\n```{code-block} python\n:class: needs-torchrun-2 needs-gpus-2\nimport torch\n```\n"
)


def test_markers_follow_the_declaration(pytester: pytest.Pytester) -> None:
    write_project(pytester.path, {"mixed.md": MIXED})
    items, _ = pytester.inline_genitems("docs")
    kinds = {"gpu", "multigpu", "distributed"}
    marked = [{marker.name for marker in item.iter_markers()} & kinds for item in items]
    assert marked == [set(), set(), {"gpu"}, {"gpu"}, set(), kinds]
    selected = pytester.runpytest_inprocess("--co", "-q", "-m", "multigpu and distributed", "docs")
    selected.stdout.fnmatch_lines(
        ["docs/mixed.md::line:28,*", "1/6 tests collected (5 deselected)*"]
    )


def test_a_requirement_reads_back_from_its_recorded_data_and_in_words() -> None:
    cases = {
        Requirement(gpus=1): "a CUDA GPU",
        Requirement(gpus=2): "2 GPUs",
        Requirement(torchrun=2, gpus=2): "2 GPUs (2 processes, torchrun)",
        Requirement(torchrun=4): "only a CPU (4 processes, torchrun)",
        Requirement(slurm=True): "a Slurm cluster",
    }
    for requirement, words in cases.items():
        assert Requirement(**requirement.as_data()) == requirement
        assert requirement.in_words == words


def test_a_block_that_holds_only_without_a_gpu_is_skipped_where_one_is(monkeypatch) -> None:
    from torchsheet_harness.run import hardware

    requirement = Requirement(no_gpu=True)
    assert requirement.markers == ("nogpu",) and requirement.label == "no GPU"
    monkeypatch.setattr(hardware, "cuda_device_count", lambda: 0)
    assert hardware.unmet_reason(requirement) is None
    monkeypatch.setattr(hardware, "cuda_device_count", lambda: 1)
    assert hardware.unmet_reason(requirement) == "holds only without a CUDA GPU; found 1"
