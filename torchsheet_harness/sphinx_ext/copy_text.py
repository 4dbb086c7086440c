"""What the copy button puts on the clipboard, and that it pastes where readers paste it.

sphinx-copybutton strips the ``>>>``/``...`` prompts and the output lines (settings below, used
by docs/conf.py). A bare ``...`` line (an empty line in a ``>>>`` block) is a prompt too, copied
as an empty line: it ends a class body or a loop at the prompt.

The classic ``python`` prompt (3.10 to 3.12; 3.13's with ``PYTHON_BASIC_REPL``) runs a compound
statement when it reads a blank line, so code that runs from a file can fail there: a blank line
inside a loop or class body ends the body (``IndentationError: unexpected indent`` on the next
line), and a top-level line right after a body is read as part of it (``SyntaxError``). The
button therefore also passes its text through ``pasteReady`` (``paste_ready.js``, wrapped around
copybutton's formatCopyText by :func:`wrap_copybutton`): blank lines inside indented bodies are
dropped, and a blank line goes before a top-level line that follows a body. Neither changes what
the code means in a file, IPython or Jupyter. The text ends with one line break: Python 3.13's
REPL and IPython, which take a bracketed paste as one input, then run it at the reader's one
Enter (without it the 3.13 REPL waits for a second; tests/harness/test_paste_repls.py). The rule
reads lines, not Python: a blank or unindented line inside a triple-quoted string would be changed,
and :func:`classic_prompt_problem` (run by the page linter) reports any block whose copy still does
not paste at the classic prompt.

The button's tooltip (:data:`COPY_TOOLTIP`, set by :func:`wrap_copybutton`) says once what a
REPL that runs a paste as one input shows of a block (docs/verification.md, "Pasting into a
REPL").

Python ports of both functions (:func:`format_copy_text`, :func:`paste_ready`) let the tests
compute the clipboard without a browser; tests/harness/test_browser.py checks them against the real
JavaScript.
"""

from __future__ import annotations

import ast
import codeop
import json
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

JS_FILE = Path(__file__).with_name("paste_ready.js")
#: The prompts the button strips: '>>> ', '... ', and a bare '...' (an empty continuation line).
PROMPT = r">>> |\.\.\. |\.\.\.$"


@dataclass(frozen=True)
class CopySettings:
    """The arguments the built copybutton.js passes to its formatCopyText."""

    prompt: str = PROMPT
    is_regexp: bool = True
    only_prompt_lines: bool = True
    remove_prompts: bool = True
    copy_empty_lines: bool = False
    line_continuation: str = ""
    here_doc_delimiter: str = ""


#: What docs/conf.py configures (it reads these).
PAGE_SETTINGS = CopySettings()
#: The copy button's tooltip (copybutton's is "Copy").
COPY_TOOLTIP = (
    "Copy (pasted into IPython, Jupyter or Python 3.13, a block shows its last value only)"
)


def wrap_copybutton(app: Any, config: Any) -> None:
    """config-inited, after copybutton's own: its formatCopyText, followed by pasteReady; and
    the tooltip."""
    source = config.html_context.get("copybutton_format_func")
    if not source or "pasteReady" in source:
        return
    renamed = source.replace("function formatCopyText(", "function formatCopyTextOfCopybutton(")
    if renamed == source:
        raise RuntimeError("sphinx-copybutton's formatCopyText not found; cannot wrap it")
    # This source lands inside copybutton.js's addCopyButtonToCodeCells, after the buttons are
    # made: set their tooltip, and the message it returns to after "Copied!". (The browser test
    # runs these functions alone, without copybutton's messages: hence the typeof.)
    tooltip = (
        "if (typeof messages !== 'undefined') {\n"
        f"  messages[locale].copy = {json.dumps(COPY_TOOLTIP)};\n"
        "  document.querySelectorAll('button.copybtn')"
        ".forEach(button => button.setAttribute('data-tooltip', messages[locale].copy));\n"
        "}"
    )
    config.html_context["copybutton_format_func"] = "\n".join(
        [renamed, JS_FILE.read_text("utf-8"), tooltip]
    )


def format_copy_text(text: str, settings: CopySettings = PAGE_SETTINGS) -> str:
    """sphinx-copybutton's formatCopyText, in Python."""
    prompt = settings.prompt if settings.is_regexp else re.escape(settings.prompt)
    regexp = re.compile(f"^({prompt})(.*)")
    lines, got_prompt = [], []
    continued = in_here_doc = False
    for line in text.split("\n"):
        match = regexp.match(line)
        if match or continued or in_here_doc:
            found = match is not None
            got_prompt.append(found)
            lines.append(match[2] if settings.remove_prompts and found else line)
            continued = bool(settings.line_continuation) and line.endswith(
                settings.line_continuation
            )
            if settings.here_doc_delimiter and settings.here_doc_delimiter in line:
                in_here_doc = not in_here_doc
        elif not settings.only_prompt_lines:
            lines.append(line)
        elif settings.copy_empty_lines and line.strip() == "":
            lines.append(line)
    if any(got_prompt):
        text = "\n".join(lines)
    return text.removesuffix("\n")


_CONTINUES_ABOVE = re.compile(r"^([)\]}]|(else|elif|except|finally)\b)")


def paste_ready(text: str) -> str:
    """paste_ready.js's pasteReady, in Python: the text as it also pastes at the classic prompt."""
    lines = text.split("\n")
    out: list[str] = []
    after_body = False  # the last code line was indented
    for index, line in enumerate(lines):
        if not line.strip():
            following = next((rest for rest in lines[index + 1 :] if rest.strip()), None)
            if following is None or following[0] not in " \t":
                out.append("")
            continue
        if line.startswith("#"):
            out.append(line)
            continue
        indented = line[0] in " \t"
        if (
            not indented
            and after_body
            and not _CONTINUES_ABOVE.match(line)
            and out
            and out[-1].strip()
        ):
            out.append("")
        out.append(line)
        after_body = indented
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out) + "\n" if out else ""


def copied_text(text: str, settings: CopySettings = PAGE_SETTINGS) -> str:
    """What the copy button yields for a block whose text is ``text``."""
    return paste_ready(format_copy_text(text, settings))


def paste_ready_changes_meaning(copied: str) -> bool:
    """Whether :func:`paste_ready` changed what ``copied`` (formatCopyText's text) means.

    The blank lines it drops or adds mean nothing to Python outside a string; inside a
    triple-quoted string they change the string. Code that does not parse is left to ruff.
    """
    try:
        before, after = ast.parse(copied), ast.parse(paste_ready(copied))
    except SyntaxError:
        return False
    return ast.dump(before) != ast.dump(after)


def classic_prompt_problem(code: str) -> str | None:
    """Why ``code`` fails when pasted at the classic ``python`` prompt, or None.

    Feeds it line by line as that prompt reads it (the rules of ``code.InteractiveConsole``:
    a statement runs as soon as it is complete, a compound one at the blank line after it), then
    one Enter, and reports the first line that is a syntax error there. Nothing is executed.
    """
    buffer: list[str] = []
    lines = code.split("\n")
    for number, line in enumerate([*lines, ""], 1):
        buffer.append(line)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SyntaxWarning)
                compiled = codeop.compile_command("\n".join(buffer), "<stdin>", "single")
        except SyntaxError as error:
            shown = line if number <= len(lines) else "(Enter)"
            name = type(error).__name__
            return f"line {number} of the copied code, {shown.strip()!r}: {name}: {error.msg}"
        if compiled is not None or (not line.strip() and len(buffer) == 1):
            buffer = []
    return None
