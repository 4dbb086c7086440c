"""Sphinx configuration for torchsheet."""

from __future__ import annotations

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

project = "torchsheet"
author = "torchsheet contributors"
copyright = "2026, torchsheet contributors"

extensions = ["myst_parser", "sphinx_copybutton"]
myst_enable_extensions = ["substitution", "deflist"]
# The version line on every page is filled in here, by the build, never typed by hand.
myst_substitutions = {"torch_version": torch.__version__}

exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
html_theme = "furo"
html_title = "torchsheet"
html_static_path = ["_static"]

# The copy button copies code only: no >>> / ... prompts and no output lines.
copybutton_prompt_text = r">>> |\.\.\. "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True
copybutton_copy_empty_lines = False
