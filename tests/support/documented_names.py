"""What a manual names, read as a reader reads it (shell commands and inline code spans), and
which of those names do not exist (:class:`Facts`): nox sessions, pytest options, markers and
ini names, paths, ``python -m`` modules, relative links and anchors (:func:`problems_of`)."""

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The noxfile's sessions that hand their arguments (after ``--``) to pytest.
PYTEST_SESSIONS = {"docs-tests", "gpu", "update-outputs"}
#: Options written alone in a span that belong to another tool than pytest.
OTHER_TOOLS = {"-W": "sphinx-build", "--standalone": "torchrun"}
MADE_BY_A_RUN = ("docs/_build/", "docs/_results/", ".venv/")
#: Files the site's build writes at the site's root (torchsheet_harness/sphinx_ext/downloads.py).
MADE_BY_THE_BUILD = {"llms.txt", "llms-full.txt"}
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})(.*)$")
_SPAN = re.compile(r"(?<!`)(`+)(?!`)((?:(?!\n\s*\n)[\s\S])+?)(?<!`)\1(?!`)")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_FILE = re.compile(r"^[\w.-]+\.(md|py|toml|txt|yml|yaml|json|png|js|css|cfg|ini|sh)$")


@dataclass(frozen=True)
class Facts:
    """What exists: sessions, pytest's options, ini names and markers, the repository's files."""

    sessions: frozenset[str]
    options: frozenset[str]
    ini: frozenset[str]
    markers: frozenset[str]
    file_names: frozenset[str]


def _normal(session: str) -> str:
    """A session name as nox matches it: spaces and the kind of quotes do not count."""
    return session.replace(" ", "").replace('"', "'")


def commands(text: str) -> list[tuple[int, str, bool]]:
    """(line, text, in a shell block) for each shell-block command and each inline code span.

    A shell command continued with a backslash is one command, at its first line; a span may
    run over a line break of its paragraph.
    """
    found: list[tuple[int, str, bool]] = []
    prose: list[str] = []  # the text outside code blocks, a blank line for each line inside
    fence: str | None = None
    shell = False
    pending: tuple[int, str] | None = None  # a shell command continued on the next line
    for number, line in enumerate(text.split("\n"), 1):
        opening = _FENCE.match(line)
        prose.append("" if fence is not None or opening else line)
        if fence is None and opening:
            fence, shell = opening[1], opening[2].strip() in ("bash", "sh", "shell", "console")
        elif fence is not None and opening and opening[1].startswith(fence) and not opening[2]:
            fence = None
        elif fence is not None and shell:
            first, start = pending or (number, "")
            line = start + line
            if line.endswith("\\"):
                pending = (first, line[:-1])
                continue
            pending = None
            command = re.split(r"\s#|^#", line)[0].strip()
            if command:
                found.append((first, command, True))
    outside = "\n".join(prose)
    for span in _SPAN.finditer(outside):
        line = outside.count("\n", 0, span.start()) + 1
        found.append((line, " ".join(span[2].split()), False))
    return sorted(found)


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def _path_problem(word: str, facts: Facts) -> str | None:
    path = word.split("::")[0].rstrip(",;:.)")
    if "://" in path or any(c in path for c in "<>*{}$[]()=") or path.startswith("-"):
        return None
    if "/" not in path and not _FILE.match(path):
        return None
    if path.startswith(MADE_BY_A_RUN) or path.startswith("/"):
        return None
    if "/" not in path:
        known = path in facts.file_names or path in MADE_BY_THE_BUILD
        return None if known else f"no file named {path!r} in the repository"
    return None if (ROOT / path).exists() else f"{path!r} does not exist"


def _pytest_problems(args: list[str], facts: Facts) -> list[str]:
    problems = []
    for i, word in enumerate(args):
        after = args[i + 1] if i + 1 < len(args) else ""
        if word.startswith("-") and word != "--":
            option = word.split("=")[0]
            if option not in facts.options:
                problems.append(f"pytest has no option {option!r}")
            elif option == "-m":
                unknown = set(re.findall(r"\w+", after)) - {"and", "or", "not"} - facts.markers
                problems += [f"no pytest marker {name!r}" for name in sorted(unknown)]
            elif option == "-o" and after.split("=")[0] not in facts.ini:
                problems.append(f"no pytest ini option {after.split('=')[0]!r}")
    return problems


def command_problems(command: str, in_block: bool, facts: Facts) -> list[str]:
    """What is wrong in one command or span: unknown sessions, options, paths, modules."""
    words = _words(command)
    while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
        words = words[1:]  # VAR=value before the command
    if not words:
        return []
    problems = [p for word in words if (p := _path_problem(word, facts))]
    first = Path(words[0]).name
    if first == "nox":
        rest = words[1:]
        posargs = rest[rest.index("--") + 1 :] if "--" in rest else []
        rest = rest[: rest.index("--")] if "--" in rest else rest
        named = [rest[i + 1] for i, w in enumerate(rest[:-1]) if w in ("-s", "--session")]
        for session in named:
            if _normal(session) not in {_normal(s) for s in facts.sessions}:
                problems.append(f"the noxfile has no session {session!r}")
        if posargs and {s.split("(")[0] for s in named} <= PYTEST_SESSIONS:
            problems += _pytest_problems(posargs, facts)
    elif first == "pytest":
        problems += _pytest_problems(words[1:], facts)
    elif not in_block and words[0].startswith("-") and words[0] not in OTHER_TOOLS:
        problems += _pytest_problems(words, facts)  # an option written alone: pytest's
    if first in ("python", "python3") and words[1:2] == ["-m"] and len(words) > 2:
        module = words[2]
        if module.startswith("torchsheet_harness"):
            if not (ROOT / (module.replace(".", "/") + ".py")).exists():
                problems.append(f"no module {module!r}")
    return problems


def github_anchor(heading: str) -> str:
    """The anchor GitHub (and this test) gives a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    return {github_anchor(m[1]) for m in re.finditer(r"^#{1,6} (.+)$", text, re.M)}


def link_problems(document: str, text: str) -> list[str]:
    """Relative links whose file is missing or whose anchor is no heading of it."""
    problems = []
    for match in _LINK.finditer(text):
        target = match[1]
        if "://" in target or target.startswith("mailto:"):
            continue
        line = text.count("\n", 0, match.start()) + 1
        path, _, anchor = target.partition("#")
        file = (ROOT / document).parent / path if path else ROOT / document
        if not file.exists():
            problems.append(f"{document}:{line}: link to {path!r}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file.read_text()):
            problems.append(f"{document}:{line}: link to {target!r}: no heading with that anchor")
    return problems


def problems_of(document: str, text: str, facts: Facts) -> list[str]:
    """Every name in ``document`` (its ``text``) that ``facts`` lack, as 'document:line: ...'."""
    found = [
        f"{document}:{line}: `{command}`: {problem}"
        for line, command, in_block in commands(text)
        for problem in command_problems(command, in_block, facts)
    ]
    return found + link_problems(document, text)
