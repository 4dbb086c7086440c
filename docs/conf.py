"""Sphinx configuration for torchsheet."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from torchsheet_harness.matrix import torch_versions  # noqa: E402
from torchsheet_harness.pages.copy_text import PAGE_SETTINGS  # noqa: E402

project = "torchsheet"
author = "torchsheet contributors"
copyright = "2026, torchsheet contributors"

# torchsheet_harness.sphinx_ext draws each block's requirement badge (from the same
# declaration that gates its test) and each page's "Verified with torch X" line, which it reads
# from the results files the test runs write (docs/_build/results/ and the committed
# docs/_results/, or $TORCHSHEET_RESULTS; see torchsheet_harness/results.py).
# It also builds the quick reference, the pitfalls page and the errors index from the blocks
# marked '% quickref: <section>', '% pitfall: ...' and '% error: ...' on the pages, and checks
# that each message the evidence file below places on a page is indexed there (a missing file
# is not an error).
extensions = ["myst_parser", "sphinx_copybutton", "torchsheet_harness.sphinx_ext"]
myst_enable_extensions = ["deflist"]
# The torch versions the tests run on (noxfile.TORCH_VERSIONS), for docs/verification.md.
torchsheet_matrix = torch_versions()
torchsheet_errors_evidence = "../evidence/errors.csv"

exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
html_theme = "furo"
html_title = "torchsheet"
html_static_path = ["_static"]
html_css_files = ["torchsheet.css"]
html_favicon = "_static/favicon.svg"
html_theme_options = {"navigation_with_keys": True}

# The copy button copies code only: no >>> / ... prompts (a bare "..." too) and no output lines,
# in a form that also pastes at the classic python prompt (torchsheet_harness.sphinx_ext wraps
# the button's function; see torchsheet_harness/pages/copy_text.py). Output blocks (class
# "output") get no button: they are what the code prints, not code to paste.
copybutton_selector = "div:not(.output) > div.highlight > pre"
copybutton_prompt_text = PAGE_SETTINGS.prompt
copybutton_prompt_is_regexp = PAGE_SETTINGS.is_regexp
copybutton_only_copy_prompt_lines = PAGE_SETTINGS.only_prompt_lines
copybutton_copy_empty_lines = PAGE_SETTINGS.copy_empty_lines
