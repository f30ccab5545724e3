"""bench/report.py's parts, in the order a run goes through them: parse (the harness's files),
stats (medians, spreads, verdicts), micro and jacobi (the cases and rows), analysis (the run as a
whole), render (the Markdown, with the method text from method.md) and plot (matplotlib)."""
