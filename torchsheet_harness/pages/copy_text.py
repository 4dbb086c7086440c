"""What the copy button puts on the clipboard, and :func:`copy_problems`: whether that is exactly
the block's statements and pastes at the classic ``python`` prompt (nothing is executed; why:
docs/verification.md, "The copy button"). :func:`format_copy_text` and :func:`paste_ready` port
the button's JavaScript; tests/harness/test_browser.py checks them against it on the built site."""

from __future__ import annotations

import ast
import codeop
import doctest
import re
import warnings
from dataclasses import dataclass

#: The prompts the button strips: '>>> ', '... ', and a bare '...' (an empty continuation line).
PROMPT = r">>> |\.\.\. |\.\.\.$"


@dataclass(frozen=True)
class CopySettings:
    """The arguments copybutton.js passes to its formatCopyText (its defaults where unset)."""

    prompt: str = PROMPT
    is_regexp: bool = True
    only_prompt_lines: bool = True
    remove_prompts: bool = True
    copy_empty_lines: bool = False
    line_continuation: str = ""
    here_doc_delimiter: str = ""


#: What docs/conf.py configures (it reads these).
PAGE_SETTINGS = CopySettings()
_CONTINUES_ABOVE = re.compile(r"^([)\]}]|(else|elif|except|finally)\b)")


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
        if not indented and after_body and not _CONTINUES_ABOVE.match(line) and out[-1:] != [""]:
            out.append("")
        out.append(line)
        after_body = indented
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out) + "\n" if out else ""


def copied_text(text: str, settings: CopySettings = PAGE_SETTINGS) -> str:
    """What the copy button yields for a block whose text is ``text``."""
    return paste_ready(format_copy_text(text, settings))


def classic_prompt_problem(code: str) -> str | None:
    """Why ``code`` fails when pasted at the classic ``python`` prompt, or None: fed line by line as
    ``code.InteractiveConsole`` reads it, then one Enter; nothing is executed."""
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


def _statements(code: str) -> str | None:
    """``code`` parsed (``ast.dump``), None when it does not parse (ruff reports that)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            return ast.dump(ast.parse(code))
    except SyntaxError:
        return None


def _not_the_statements(code: str, copied: str) -> str | None:
    """What the block's statements are, when ``copied`` is not exactly them; else None."""
    if code.startswith(">>>"):
        examples = doctest.DocTestParser().get_examples(code)
        source = "".join(example.source for example in examples)
        lines = [line for line in source.splitlines() if line.strip()]
        same = [line for line in copied.splitlines() if line.strip()] == lines
        if same and _statements(copied) == _statements(source):
            return None
        return "the block's statements are\n" + "\n".join(lines)
    if _statements(code) is None or _statements(copied) == _statements(code):
        return None
    return f"the block's code is\n{code.rstrip()}"


def copy_problems(code: str, where: str) -> list[str]:
    """What is wrong with the copy button's text for the Python block ``code``, each as '``where``:
    why'; [] when it is exactly the block's statements and pastes at the classic prompt."""
    raw = format_copy_text(code)
    copied = paste_ready(raw)
    wrong = _not_the_statements(code, copied)
    if wrong is not None and _not_the_statements(code, raw) is None:
        return [
            f"{where}: the copy button's blank-line rule (pasteReady) changes what this block "
            "means (a blank or unindented line in a multi-line string?); write the string "
            "without them, e.g. with \\n"
        ]
    if wrong is not None:
        return [f"{where}: the copy button yields\n{copied}but {wrong}"]
    problem = classic_prompt_problem(copied)
    if problem is not None:
        return [f"{where}: the copy button's code fails at the classic python prompt: {problem}"]
    return []
