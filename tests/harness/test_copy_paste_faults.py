"""Planted faults that tests/harness/test_copy_paste.py catches, each failure naming page and line.

One small site (sphinx-build -W with the sheet's conf.py, a few seconds) holds a page per fault;
each is pasted as the copy-paste test pastes a real page (``page_pastes``), into a fresh prompt
that imports nothing (a second or less a page). A clean page passes: the checks do not fail on
code that is right. The faults: output that only the harness's seeding gives, a name only the
harness's namespace has, output the page shows that a fresh interpreter does not print (or
prints more of), a traceback the page does not show or another exception than it shows, copied
text that is not the block's statements, code the classic prompt rejects, and a block that
ends the interpreter.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pasted_steps
import pytest
from built_site import DOCS
from prompt_outputs import doctest_problems, terminal_text
from test_copy_paste import page_pastes

from torchsheet_harness.pages.state import _SAVED, PAGE_SEED
from torchsheet_harness.sphinx_ext.copy_text import format_copy_text

FENCE = "```"
#: What ``random.random()`` gives in the harness, which seeds every page.
SEEDED = random.Random(PAGE_SEED).random()
LOOPS = f"""\
{FENCE}python
total = 0
for step in range(3):
    total += step

    total *= 2
print("total", total)
{FENCE}

{FENCE}python
for step in range(2):
    pass
print("done")
{FENCE}
"""
PAGES = {
    "clean.md": f"""\
{FENCE}python
>>> values = [3, 1, 2]
>>> for value in sorted(values):
...     print(value)
...
1
2
3
>>> int("x")
Traceback (most recent call last):
    ...
ValueError: invalid literal for int() with base 10: 'x'
{FENCE}

{FENCE}python
for step in range(2):
    step * 10
    print("step", step)
{FENCE}

{FENCE}{{code-block}} text
:class: output
step 0
step 1
{FENCE}
""",
    "seeded.md": f"{FENCE}python\n>>> import random\n>>> random.random()\n{SEEDED!r}\n{FENCE}\n",
    "harness-name.md": f"{FENCE}python\n>>> len({_SAVED}) > 0\nTrue\n{FENCE}\n",
    "not-printed.md": f"""\
{FENCE}python
import sys
if "torch" in sys.modules:
    print("torch is loaded")
{FENCE}

{FENCE}{{code-block}} text
:class: output
torch is loaded
{FENCE}

{FENCE}python
for step in range(2):
    step * 10
    print("step", step)
{FENCE}

{FENCE}{{code-block}} text
:class: output
step 0
step 2
{FENCE}
""",
    "extra-line.md": f'{FENCE}python\n>>> print("a"); print("b")\na\n{FENCE}\n',
    "tracebacks.md": f"""\
{FENCE}python
>>> counts = {{}}
>>> counts["key"]
{FENCE}

{FENCE}python
raise RuntimeError("boom")
{FENCE}
""",
    "wrong-exception.md": f"""\
{FENCE}python
>>> int("x")
Traceback (most recent call last):
    ...
ValueError: invalid literal for int() with base 10: 'y'
{FENCE}
""",
    "exits.md": f"""\
{FENCE}python
>>> raise SystemExit(3)
{FENCE}

{FENCE}python
>>> 1
1
{FENCE}
""",
    "loops.md": LOOPS,
    "string-in-body.md": f'''\
{FENCE}python
def text():
    return """first

    second"""
{FENCE}
''',
}


@pytest.fixture(scope="module")
def planted_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(docs, html): the planted pages and the site built from them."""
    root = tmp_path_factory.mktemp("planted-site")
    docs = root / "docs"
    docs.mkdir()
    shutil.copy(DOCS / "conf.py", docs)
    shutil.copytree(DOCS / "_static", docs / "_static")
    for name, text in PAGES.items():
        page = f"# Planted page\n\nA page with a planted fault.\n\n{text}"
        (docs / name).write_text(page, encoding="utf-8")
    toctree = "\n".join(name.removesuffix(".md") for name in PAGES)
    index = "# Planted\n\nPlanted pages.\n\n```{quick-reference}\nCreation\n```\n\n"
    index += f"```{{toctree}}\n{toctree}\n```\n"
    (docs / "index.md").write_text(index, encoding="utf-8")
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
    built = subprocess.run(
        [*command, str(docs), str(root / "html")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(DOCS.parent)},
    )
    assert built.returncode == 0, built.stderr + built.stdout
    return docs, root / "html"


def pasted(name: str, planted_site: tuple[Path, Path], tmp_path: Path) -> str:
    """The copy-paste test's problems with the planted page ``name``, as one text."""
    docs, site = planted_site
    tmp_path.mkdir(parents=True, exist_ok=True)
    return "\n\n".join(page_pastes(docs / name, site, tmp_path, docs))


def test_a_clean_page_passes(planted_site, tmp_path) -> None:
    assert pasted("clean.md", planted_site, tmp_path) == ""


def test_output_of_the_harness_seeding_fails(planted_site, tmp_path) -> None:
    failure = pasted("seeded.md", planted_site, tmp_path)
    assert "docs/seeded.md:6 " in failure
    assert "the example at line 7 ('random.random()') printed something else" in failure
    assert repr(SEEDED) in failure


def test_a_name_of_the_harness_namespace_fails(planted_site, tmp_path) -> None:
    failure = pasted("harness-name.md", planted_site, tmp_path)
    assert "docs/harness-name.md:6 " in failure and "the example at line 6" in failure
    assert "raised a traceback the page does not show" in failure
    assert f"NameError: name '{_SAVED}' is not defined" in failure


def test_output_a_fresh_interpreter_does_not_print_fails(planted_site, tmp_path) -> None:
    failure = pasted("not-printed.md", planted_site, tmp_path)
    assert "docs/not-printed.md:6 " in failure
    assert "the block printed something else than its output block" in failure
    # A block whose values the prompt echoes: its output lines must still all be printed.
    assert "docs/not-printed.md:17 " in failure
    assert "the output block's lines are not among what it showed" in failure


def test_output_the_page_does_not_show_fails(planted_site, tmp_path) -> None:
    failure = pasted("extra-line.md", planted_site, tmp_path)
    assert "docs/extra-line.md:6 " in failure and "printed something else" in failure


def test_a_traceback_the_page_does_not_show_fails(planted_site, tmp_path) -> None:
    failure = pasted("tracebacks.md", planted_site, tmp_path)
    assert "docs/tracebacks.md:6 " in failure and "the example at line 7" in failure
    assert "KeyError: 'key'" in failure
    assert "docs/tracebacks.md:11 " in failure
    assert "the block raised a traceback the page does not show" in failure
    assert "RuntimeError: boom" in failure


def test_another_exception_than_the_page_shows_fails(planted_site, tmp_path) -> None:
    failure = pasted("wrong-exception.md", planted_site, tmp_path)
    assert "docs/wrong-exception.md:6 " in failure and "raised something else" in failure
    assert "ValueError: invalid literal for int() with base 10: 'x'" in failure


def test_a_block_that_ends_the_interpreter_fails(planted_site, tmp_path) -> None:
    failure = pasted("exits.md", planted_site, tmp_path)
    assert failure.startswith("docs/exits.md:6 (§ Planted page): the interpreter exited")
    assert "docs/exits.md:10 " not in failure  # not pasted: no prompt to paste it at


def test_copied_text_that_is_not_the_statements_fails(planted_site, tmp_path, monkeypatch):
    # A form the copy rules get wrong: a blank line in a string, in a body, is dropped.
    with pytest.raises(AssertionError, match=r"docs/string-in-body\.md:6 .*the copy button"):
        pasted("string-in-body.md", planted_site, tmp_path)

    # The copy port dropping a block's last line: a >>> block and a plain block.
    def drop_last_line(text: str, settings: object) -> str:
        return "\n".join(format_copy_text(text, settings).split("\n")[:-1]) + "\n"

    monkeypatch.setattr(pasted_steps, "copied_text", drop_last_line)
    with pytest.raises(AssertionError) as dropped:
        pasted("clean.md", planted_site, tmp_path)
    assert "docs/clean.md:6 (§ Planted page): the copy button yields" in str(dropped.value)
    assert "docs/clean.md:20 (§ Planted page): the copy button yields" in str(dropped.value)


def test_code_the_classic_prompt_rejects_fails(planted_site, tmp_path, monkeypatch) -> None:
    assert pasted("loops.md", planted_site, tmp_path / "ready") == ""
    # Without pasteReady (copybutton's text alone), both blocks fail at the prompt.
    monkeypatch.setattr(pasted_steps, "copied_text", format_copy_text)
    failure = pasted("loops.md", planted_site, tmp_path / "raw")
    assert "docs/loops.md:6 " in failure and "IndentationError: unexpected indent" in failure
    assert "docs/loops.md:15 " in failure and "SyntaxError: invalid syntax" in failure


def test_the_terminal_text_leaves_out_only_what_the_page_tests_do_not_capture() -> None:
    shown = [
        "tensor([1., 2.])\r\n<stdin>:1: FutureWarning: old spelling",
        "/venv/torch/amp.py:12: UserWarning: from torch's own file\r\n  warnings.warn(message)",
        "W1202 01:34:23.843000 16144 torch/_dynamo/variables/tensor.py:1759] [1/0] Graph break",
        "ERROR:2026-12-02 02:01:52 29310:29310 DeviceProperties.cpp:56] gpuGetDeviceCount failed",
        "[rank0]: Traceback (most recent call last):\r\n[rank0]: ValueError: boom",
        "[rank0]: [rank0]: ValueError: after a second init_process_group",
        "W1202 is a line the code printed",
    ]
    assert terminal_text(shown) == (
        "tensor([1., 2.])\nFutureWarning: old spelling\n"
        "Traceback (most recent call last):\nValueError: boom\n"
        "ValueError: after a second init_process_group\nW1202 is a line the code printed\n"
    )


def test_a_chained_exception_is_compared_by_its_last_traceback() -> None:
    code = ">>> f()\nTraceback (most recent call last):\n    ...\nValueError: outer\n"
    step = {"kind": "doctest", "code": code, "copied": "f()"}
    chain = (
        "Traceback (most recent call last):\nKeyError: 'inner'\n\n"
        "The above exception was the direct cause of the following exception:\n\n"
        "Traceback (most recent call last):\nValueError: outer"
    )
    assert doctest_problems(step, [chain]) == []
    other = chain.replace("ValueError: outer", "ValueError: other")
    assert "raised something else" in doctest_problems(step, [other])[0]
