"""The benchmarks' reports, each a module run through this folder (`python3 bench/reporting NAME
ARGS...`, see __main__.py): report (bench/run-bench.sh's), ab_report (bench/run-ab.sh's),
latency_report (bench/run-latency.sh's), safe_layer_report (bench/run-safe-layer.sh's) and baseline
(the guard of the first and the third). Their parts, in the order a run goes through them: parse
(the harness's files), stats (medians, the one spread formula, verdicts), micro and jacobi (the
cases and rows), analysis (the run as a whole), render (the Markdown, with the method text from
method.md) and plot (matplotlib). Standard library only, but for the plots."""
