"""The pages side: a page read once, its blocks, requirements and markers, the checks that need
only the page, and the Sybil that collects it. Importing this package imports neither torch nor
pytest."""
