"""torchsheet's test harness: the pages in docs/ as pytest items, and on the site what the tests
found. Its sides and how data flows through them: MAINTAINING.md, "Where the harness lives"."""
