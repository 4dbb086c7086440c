"""Checks over the pages that are not examples: the audit, the page linter, the static check."""
