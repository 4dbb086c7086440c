"""Blocks run in the page's interpreter, as a reader's paste runs at a fresh prompt: each statement
compiled in the prompt's ``single`` mode, so what the prompt echoes is checked too; a block that
ends the interpreter (``SystemExit``) fails, as it would end the reader's session."""

from __future__ import annotations

import ast
import io
from contextlib import nullcontext, redirect_stdout
from dataclasses import dataclass

from sybil import Example
from sybil.evaluators.doctest import DocTestEvaluator, DocTestRunner, OutputChecker

from ..locations import place
from . import gpu_host_prompt
from .deprecations import Watch
from .evaluators import PRINTED, compare_output, padded_source, shows_deprecation, where
from .outputs import OPTION_FLAGS, OutputMismatch, first_difference


class _RecordingChecker(OutputChecker):
    """Sybil's checker, remembering the last (want, got) compared: for an example that shows a
    traceback, doctest compares only its exception line(s), and this says which."""

    last: tuple[str, str] | None = None

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        self.last = (want, got)
        return super().check_output(want, got, optionflags)


class _Runner(DocTestRunner):
    def __init__(self, optionflags: int) -> None:
        super().__init__(optionflags)
        self._checker = _RecordingChecker()
        self.mismatch: tuple[str, str, str] | None = None
        self.exited: str | None = None  # the exception line of a SystemExit an example raised

    def report_failure(self, out, test, example, got) -> None:  # noqa: ANN001
        want, printed = self._checker.last
        exception = example.exc_msg is not None and want == example.exc_msg
        if exception and printed.startswith("SystemExit"):
            self.exited = printed.strip()
        self.mismatch = (want, printed, "exception" if exception else "want")
        super().report_failure(out, test, example, got)
        out(first_difference(want, printed) + "\n")

    def report_success(self, out, test, example, got) -> None:  # noqa: ANN001
        if example.exc_msg is not None and example.exc_msg.startswith("SystemExit"):
            self.exited = example.exc_msg.strip()  # a traceback a prompt never prints
        super().report_success(out, test, example, got)

    def report_unexpected_exception(self, out, test, example, exc_info) -> None:  # noqa: ANN001
        if issubclass(exc_info[0], SystemExit):
            self.exited = f"{exc_info[0].__name__}: {exc_info[1]}"
        super().report_unexpected_exception(out, test, example, exc_info)


def gpu_host(example: Example):  # noqa: ANN201
    """The GPU-host mode for a CPU block's example where the mode is on (:mod:`.gpu_host_prompt`),
    else nothing."""
    block = getattr(example.region, "block", None)
    checked = block is not None and block.requirement.is_cpu_only and block.gpu_host is None
    if not checked or not gpu_host_prompt.mode_on():
        return None
    return gpu_host_prompt.gpu_host(example.path, example.line)


def explained(message: str | None, asked: gpu_host_prompt.Asked | None) -> str | None:
    """A failure with what the block asked about CUDA in GPU-host mode, if it asked."""
    if not message or asked is None or not asked.questions:
        return message
    note = f"{message}\n{asked.explain(place)}"
    if isinstance(message, OutputMismatch):
        return OutputMismatch(note, message.expected, message.got, message.part)
    return note


class DocTestExample(DocTestEvaluator):
    """Sybil's doctest evaluator, whose output failure is an :class:`.outputs.OutputMismatch`."""

    def __init__(self, optionflags: int = OPTION_FLAGS) -> None:
        self.runner = _Runner(optionflags)

    def __call__(self, example: Example) -> str:
        __tracebackhide__ = True
        self.runner.mismatch = self.runner.exited = None
        self.runner._checker.last = None
        host = gpu_host(example) or nullcontext()
        with Watch(example, shows_deprecation(example)) as watch, host as asked:
            message = super().__call__(example)
        if self.runner._checker.last is not None:  # what it printed, or the exception line
            setattr(example, PRINTED, self.runner._checker.last[1])
        if self.runner.exited is not None:
            return ends_the_interpreter(example, example.line, self.runner.exited)
        deprecated = watch.failure()
        if message and self.runner.mismatch is not None:
            want, got, part = self.runner.mismatch
            message = OutputMismatch(message, want, got, part)
        return explained(message, asked) or deprecated or ""


@dataclass
class PythonBlock:
    """Runs a plain block as the prompt does, checking what it printed against ``expected``."""

    expected: str | None = None

    def __call__(self, example: Example) -> str | None:
        __tracebackhide__ = True
        tree = ast.parse(padded_source(example), example.path)
        buffer = io.StringIO()
        host = gpu_host(example) or nullcontext()
        with redirect_stdout(buffer), Watch(example, shows_deprecation(example)) as watch:
            with host as asked:
                for statement in tree.body:
                    single = ast.Interactive([statement])
                    code = compile(single, example.path, "single", dont_inherit=True)
                    try:
                        exec(code, example.namespace)
                    except SystemExit as exiting:
                        return ends_the_interpreter(example, statement.lineno, exiting)
                    except Exception as error:
                        if asked is not None and asked.questions and hasattr(error, "add_note"):
                            error.add_note(asked.explain(place))
                        raise
        got, deprecated = buffer.getvalue(), watch.failure()
        setattr(example, PRINTED, got)
        if self.expected is not None:
            mismatch = compare_output(self.expected, got, where(example))
            return explained(mismatch, asked) or deprecated
        if got.strip():
            return (
                f"{where(example)}: the block printed output but the page shows none (a value "
                "the prompt echoes counts); follow it with an output block or use a >>> block\n"
                f"--- got ---\n{got.rstrip()}"
            )
        return deprecated


def ends_the_interpreter(example: Example, line: int, exiting: BaseException | str) -> str:
    """The failure of a block whose code ends the interpreter, as it would a reader's prompt."""
    if isinstance(exiting, BaseException):
        exiting = f"{type(exiting).__name__}: {exiting}"
    return (
        f"{where(example, line)}: the block ends the interpreter ({exiting}); pasted at a "
        "prompt, it would exit there and nothing after it would run"
    )
