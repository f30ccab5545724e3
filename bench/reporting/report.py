"""The report of bench/run-bench.sh: Rust kernels against the same kernels in CUDA C++.

    python3 bench/reporting report --results RESULTS.txt --machine MACHINE.txt --prefix OUT/bench-STAMP

reads the tagged result lines the harness collected and writes PREFIX.md (summary, method, machine,
then one section per PE count with every figure, every ratio, the noise band and the verdicts
against the targets, and appendices with every round) and, when matplotlib is there,
PREFIX-pesN-bandwidth.png, PREFIX-pesN-bandwidth-ratio.png, PREFIX-pesN-latency.png for each PE
count N and PREFIX-jacobi.png. Prints a short summary.

Input lines (one per measurement; the harness appends run_impl=, round=, job= and run_pes=):

    result: bench=put_bw impl=rust scope=block bytes=4096 grid=1 pes=2 value=1.2 unit=GB/s ...
    result: variant=p pes=2 nx=... seconds_per_iter=... gbps=... check=pass norm=... run_impl=rust ...
    check: bench=put_bw impl=cuda bytes=268435456 status=pass mismatches=0 ...
    skip: bench=... reason=... ...
    job: name=... run_impl=... round=... pes=2 mps=on status=0 seconds=12.3
    na: bench=jacobi variant=nccl pes=2 reason=one GPU

Lines without a PE count (the programs' `check:` and `skip:` lines, files of older harnesses) take
that of the results of the same run. Only the standard library is needed for the Markdown;
matplotlib only for the plots (`--no-plots` leaves them out).

The reading, the statistics, the Markdown and the plots live beside it in bench/reporting/ (the
method text is its template method.md).

Exit status: 1 when a run did not exit 0, a data check or Jacobi check failed, or a case or Jacobi
row has no figure (the report shows each as FAILED); 0 otherwise, whatever the ratios are.
"""

import argparse
import os
import sys

from .analysis import analyse
from .parse import read_machine, read_results
from .plot import plots
from .render import console, document


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", required=True)
    parser.add_argument("--machine")
    parser.add_argument("--prefix", required=True, help="output path prefix, e.g. OUT/bench-1gpu")
    parser.add_argument("--no-plots", action="store_true", help="write the Markdown only")
    args = parser.parse_args(argv)

    run = analyse(read_results(args.results), read_machine(args.machine))
    os.makedirs(os.path.dirname(os.path.abspath(args.prefix)), exist_ok=True)
    try:
        micro_images, jacobi_images = ({}, []) if args.no_plots else plots(args.prefix, run.cases, run.timing,
                                                                           run.pes_list)
    except Exception as error:  # noqa: BLE001 — a broken plot must not cost the report
        print(f"report: plotting failed ({error!r}); the Markdown is written without plots", file=sys.stderr)
        micro_images, jacobi_images = {}, []
    with open(f"{args.prefix}.md", "w", encoding="utf-8") as f:
        f.write("\n".join(document(run, micro_images, jacobi_images)))

    # The short summary the harness prints last.
    images = [i for p in run.pes_list for i in micro_images.get(p, [])] + jacobi_images
    print("\n".join(console(run, f"{args.prefix}.md", images)))
    problems = run.problems()
    if problems:
        print("report: FAILED: " + "; ".join(problems) + " (see the report)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
