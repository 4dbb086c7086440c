"""Writers over the page model: the notebook, the Markdown twin, llms.txt (no Sphinx, no torch)."""
