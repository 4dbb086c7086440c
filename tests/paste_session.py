"""A reader's interpreter session, run by tests/test_copy_paste.py as ``python -I`` in a fresh dir.

Reads a JSON list of steps (one per code block, in page order) and runs them in one namespace,
as a reader pastes block after block into one ``python``: a ``>>>`` block as the interactive
interpreter runs it (doctest: each statement in 'single' mode, its output compared with the
page's), a plain block as a whole, its printed output compared with the page's output block.
Writes one result per step to the JSON file named by the second argument, after each step.
Only the standard library: nothing from the test harness is imported here.
"""

import builtins
import contextlib
import doctest
import io
import json
import sys
import traceback
import types
import warnings

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def show_pasted_warning(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
    """A warning the pasted code raised shows between its output, as on the reader's terminal
    ('<stdin>:1: FutureWarning: ...'); the page shows it without the location, which differs
    between the prompt and a file. Warnings raised elsewhere go to stderr as usual."""
    if filename.startswith("<doctest "):
        sys.stdout.write(f"{category.__name__}: {message}\n")
    else:
        warnings._showwarning_orig(message, category, filename, lineno, file, line)


def run_doctest(step: dict, namespace: dict) -> str | None:
    test = doctest.DocTestParser().get_doctest(
        step["code"], namespace, step["name"], step["name"], 0
    )
    test.globs = namespace  # get_doctest copies the namespace; the session shares one
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report = io.StringIO()
    with warnings.catch_warnings():
        warnings.showwarning = show_pasted_warning
        runner.run(test, out=report.write, clear_globs=False)
    return report.getvalue() if runner.failures else None


def run_plain(step: dict, namespace: dict) -> str | None:
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(step["code"], step["name"], "exec"), namespace)
    except BaseException:  # noqa: BLE001 - any error is the reader's error
        return f"raised:\n{traceback.format_exc()}printed before:\n{printed.getvalue()}"
    expected = step.get("expected")
    got = printed.getvalue()
    if expected is not None and not doctest.OutputChecker().check_output(expected, got, FLAGS):
        return f"printed something else than the page shows\nexpected:\n{expected}got:\n{got}"
    return None


def main() -> None:
    steps_file, results_file = sys.argv[1:3]
    with open(steps_file, encoding="utf-8") as steps_in:
        steps = json.load(steps_in)
    # As in the interactive interpreter: the code runs in __main__ (so pickling a class defined
    # on the page works as it does for the reader) and sys.argv is [''].
    main_module = types.ModuleType("__main__")
    main_module.__builtins__ = builtins
    sys.modules["__main__"] = main_module
    sys.argv = [""]
    namespace = main_module.__dict__
    results = []
    for step in steps:
        run = run_doctest if step["kind"] == "doctest" else run_plain
        results.append({"name": step["name"], "failure": run(step, namespace)})
        with open(results_file, "w", encoding="utf-8") as out:
            json.dump(results, out)


if __name__ == "__main__":
    main()
