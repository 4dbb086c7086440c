"""What the classic prompt showed for one pasted block, checked against the page.

Test support for tests/harness/test_copy_paste.py. The prompt (tests/support/prompt_session.py)
gives what the terminal showed after each typed line; here each line is given to the doctest
example (a ``>>>`` block) or the top-level statement (a plain block) it belongs to, and the text is
compared with the harness's own comparison (:func:`torchsheet_harness.run.outputs.matches`:
doctest's, with the flags the page tests use):

- a ``>>>`` example: what the prompt showed between its prompts is exactly its output on the
  page; for an example that shows a traceback, the exception line(s) after the terminal's
  traceback are the page's, as doctest compares them;
- a plain block: its output block is what it printed, exactly when no statement of it may make
  the prompt echo a value (:func:`echoes`: a bare expression such as ``torch.manual_seed(0)``
  or ``model.train()``, outside a function or class body; a file run prints no such value);
  with one, every line of the output block is shown, in order, among the echoed values;
- any block: no SyntaxError or IndentationError, and no traceback the page does not show (of
  a chained exception, the page shows the last, as doctest compares it).

The terminal shows stderr too. A warning the pasted code raised (``<stdin>:1: FutureWarning:
...``) is compared as the page shows it, without its location; one that names another file
(torch's own) is left out, as the page tests pass such warnings to pytest rather than into the
output. So are torch's log lines (its C++ and ``torch._logging`` lines, the profiler's
``USDT:`` and ``ERROR:`` ones), which the page tests do not capture either, and the
``[rank0]: `` that torch's exception hook puts before each traceback line once a process group
exists (repeated, ``[rank0]: [rank0]: ``, after a second ``init_process_group`` in the session).
"""

from __future__ import annotations

import ast
import doctest
import re

import pexpect
from pasted_steps import echoes_a_value
from prompt_session import ESCAPE, SYNTAX, TRACEBACK, ClassicPrompt

from torchsheet_harness.run.outputs import first_difference, matches

#: A log line torch writes to stderr: its C++ and logging-module lines ('W1202 01:34:23.84 16144
#: torch/_dynamo/...py:1759] ...') and the profiler's (kineto: 'USDT:2026-12-02 01:34:22
#: 16141:16141 SyncActivityProfilerHandler.cpp:52] profiler_start', 'ERROR:2026-12-02 ...').
_LOG = re.compile(
    r"^(?:[IWEFV]\d{4}|[A-Z]+:\d{4}-\d\d-\d\d) \d\d:\d\d:\d\d\S* +\d+(?::\d+)? \S+:\d+\] "
)
#: What torch's excepthook puts before each line of a traceback once a process group exists:
#: once per ``init_process_group`` of the session, as each one wraps the hook it found.
_RANK = re.compile(r"^(?:\[rank\d+\]: ?)+")
_WARNING = re.compile(r"^(?P<file>\S.*?):\d+: (?P<category>\w*Warning): (?P<text>.*)$")
#: doctest's own split of a traceback into its header, its stack and the exception line(s).
_EXCEPTION = doctest.DocTestParser._EXCEPTION_RE
_INNER = "Traceback (most recent call last):"  # also inside a DataLoader worker's message
#: What Python prints between the tracebacks of chained exceptions. A doctest (and so the page)
#: shows the last exception of a chain only, as its exception line.
_CHAINED = re.compile(
    r"^(?:The above exception was the direct cause of the following exception:"
    r"|During handling of the above exception, another exception occurred:)$",
    re.MULTILINE,
)


def terminal_text(segments: list[str]) -> str:
    """What the terminal showed for some typed lines, as a page shows output: ``\\n`` line ends,
    and warnings as described in the module docstring."""
    text = "\n".join(s.replace("\r\n", "\n").replace("\r", "") for s in segments if s.strip())
    lines: list[str] = []
    after_other_warning = False
    for line in text.split("\n"):
        line = _RANK.sub("", line)
        if _LOG.match(line):
            continue
        if after_other_warning and line.startswith("  "):
            continue  # the source line the warnings module prints after file:line
        warning = _WARNING.match(line)
        after_other_warning = warning is not None and warning["file"] != "<stdin>"
        if warning is None:
            lines.append(line)
        elif warning["file"] == "<stdin>":
            lines.append(f"{warning['category']}: {warning['text']}")
    return "\n".join(lines) + "\n" if any(line.strip() for line in lines) else ""


def line_owners(step: dict) -> list[int]:
    """For each line of the copied text: the example (``>>>``) or top-level statement (plain)
    it belongs to, by index. A blank or comment line belongs to the one before it: at the
    prompt a blank line ends it, and what it prints shows after that line."""
    lines = step["copied"].split("\n")
    if step["kind"] == "doctest":
        sizes = [
            sum(1 for line in example.source.splitlines() if line.strip())
            for example in doctest.DocTestParser().get_examples(step["code"])
        ]
        owners, current, used = [], 0, 0
        for line in lines:
            if line.strip():
                if used == sizes[current] and current + 1 < len(sizes):
                    current, used = current + 1, 0
                used += 1
            owners.append(current)
        return owners
    starts = [
        min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        for node in ast.parse(step["copied"]).body
    ]
    return [
        max([0, *(index for index, start in enumerate(starts) if start <= number)])
        for number in range(1, len(lines) + 1)
    ]


def owned_texts(step: dict, shown: list[str]) -> list[str]:
    """What the terminal showed for each example or statement (:func:`line_owners`); the
    Enters pressed after the paste belong to the last one."""
    owners = line_owners(step)
    owners += [owners[-1]] * (len(shown) - len(owners))
    count = max(owners) + 1
    return [
        terminal_text([text for text, owner in zip(shown, owners, strict=True) if owner == i])
        for i in range(count)
    ]


def mismatch(what: str, expected: str, got: str) -> str:
    return (
        f"{what}\n--- expected (from the page) ---\n{expected.rstrip()}\n"
        f"--- the terminal showed ---\n{got.rstrip()}\n{first_difference(expected, got)}"
    )


def doctest_problems(step: dict, shown: list[str]) -> list[str]:
    """Each example's output between its prompts against the page's (module docstring)."""
    examples = doctest.DocTestParser().get_examples(step["code"])
    problems = []
    for example, got in zip(examples, owned_texts(step, shown), strict=False):
        line = step["line"] + example.lineno if step.get("line") else "?"
        what = f"the example at line {line} ({example.source.splitlines()[0].strip()!r})"
        allowed = 0 if example.exc_msg is None else 1 + example.exc_msg.count(_INNER)
        if example.exc_msg is not None:
            got = _CHAINED.split(got)[-1]  # the last exception of a chain, as doctest compares
        if got.count(TRACEBACK) > allowed:
            problems.append(f"{what} raised a traceback the page does not show:\n{got.rstrip()}")
        elif example.exc_msg is None:
            if not matches(example.want, got):
                problems.append(mismatch(f"{what} printed something else", example.want, got))
        else:
            found = _EXCEPTION.match(got[got.find(TRACEBACK) :]) if TRACEBACK in got else None
            raised = found["msg"] if found else got
            if not matches(example.exc_msg, raised):
                problems.append(mismatch(f"{what} raised something else", example.exc_msg, raised))
    return problems


def plain_problems(step: dict, shown: list[str]) -> list[str]:
    """No traceback; the output block, exactly or among echoed values (module docstring)."""
    got = terminal_text(shown)
    if TRACEBACK in got:
        return [f"the block raised a traceback the page does not show:\n{got.rstrip()}"]
    expected = step["expected"]
    if expected is None:
        return []
    if echoes(step["copied"]):
        in_order = "...".join(line for line in expected.splitlines() if line.strip())
        if matches(f"...{in_order}...", got):
            return []
        return [mismatch("the output block's lines are not among what it showed", expected, got)]
    if matches(expected, got):
        return []
    return [mismatch("the block printed something else than its output block", expected, got)]


def echoes(code: str) -> bool:
    """Whether the prompt may echo a value of ``code``: a bare expression (not a ``print``) that
    is not in a function or class body (the prompt echoes those in a loop or a ``with`` too)."""
    found, todo = False, list(ast.parse(code).body)
    while todo and not found:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        found = isinstance(node, ast.Expr) and echoes_a_value(ast.unparse(node))
        todo.extend(child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt))
    return found


def step_problems(step: dict, shown: list[str]) -> list[str]:
    """What is wrong with what the prompt showed, line by line, for one pasted block."""
    syntax = [match[0].strip() for match in SYNTAX.finditer("\n".join(shown))]
    if syntax:
        return [f"the prompt rejected the pasted code: {'; '.join(syntax)}"]
    check = doctest_problems if step["kind"] == "doctest" else plain_problems
    return check(step, shown)


def pasted_problems(steps: list[dict], prompt: ClassicPrompt) -> list[str]:
    """Paste each step at ``prompt``, in order: the problems, each naming page, line and block,
    with what was pasted."""
    problems = []
    for step in steps:
        try:
            shown = prompt.paste_lines(step["copied"])
        except (pexpect.EOF, pexpect.TIMEOUT) as stop:
            why = "exited" if isinstance(stop, pexpect.EOF) else "timed out on a line"
            last = ESCAPE.sub("", prompt.child.before or "")[-3000:]
            problems.append(
                f"{step['name']}: the interpreter {why} while this block was pasted; the blocks "
                f"after it were not pasted\n--- the terminal showed ---\n{last}"
            )
            break
        found = step_problems(step, shown)
        if found:
            problems.append(
                f"{step['name']}: pasted at a fresh python prompt: " + "\n".join(found)
                + f"\n--- pasted ---\n{step['copied']}"
            )  # fmt: skip
    return problems
