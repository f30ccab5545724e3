"""The benchmarks' baseline guard: each cell's median against the last accepted medians of the same
GPU model, so that a cell that got slower fails the run even when the CUDA C++ twin got slower
alike (the Rust ÷ twin ratios cannot see that).

    python3 bench/reporting baseline check  --suite SUITE --gpu NAME --results RESULTS... [--machine FILE]
    python3 bench/reporting baseline accept --suite SUITE --gpu NAME --results RESULTS... [--machine FILE]
                                            --source TEXT [--only WORD...]

SUITE is `bench-1gpu` (bench/run-bench.sh on one GPU; `bench-2gpu` on two, ...) or `latency-1gpu`
(bench/run-latency.sh); RESULTS are that harness's result files, MACHINE the harness's machine
file (bench/run-bench.sh's arguments are checked against the baseline's). NAME is the GPU's name
as nvidia-smi gives it; the baseline is bench/baseline/<model>.json (`NVIDIA H200` → h200.json).

A cell is one benchmark case (micro-benchmark: bench, scope, bytes, grid, PEs; Jacobi: variant,
PEs, grid, iterations, norm cadence, graph); its figure is the median of the Rust program's runs.
`check` names every cell slower than its baseline by more than the noise band, exits 1 if there is
one, and 0 otherwise (also where the GPU model has no baseline, or the run's arguments differ from
the baseline's: it says so). The band of a cell is the largest of the suite's band (3 %), the
spread of its runs in this run and in the baseline's (largest |run ÷ median − 1|). `accept` writes
the run's cells into the baseline (all, or those whose name holds one of the --only words), with
SOURCE saying which run they came from: the baseline changes only on purpose, and its reason goes
into bench/results/README.md.
"""

import argparse
import json
import os
import re
import statistics
import sys

from . import latency_report
from .jacobi import jacobi_runs
from .micro import micro_cases
from .parse import number, read_machine, read_results
from .stats import median, spread

BASELINES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "baseline")
BAND = 0.03  # a suite's band where its file sets none: the reports' ±3 %
# The run-bench.sh arguments that shape the micro-benchmark cells (the Jacobi cells name theirs).
MICRO_ARGS = ("micro_args", "collective_args")


def model(gpu):
    """`NVIDIA H200` → `h200`; `NVIDIA H100 80GB HBM3` → `h100-80gb-hbm3`."""
    name = gpu.split(",")[0].strip().lower()
    name = re.sub(r"^nvidia\s+", "", name)
    return re.sub(r"[^a-z0-9]+", "-", name).strip("-") or "unknown"


def baseline_path(gpu):
    return os.path.join(BASELINES, f"{model(gpu)}.json")


class Cell:
    """One cell's Rust figure in one run: median and spread over its runs, and its unit."""

    def __init__(self, values, unit, higher_is_better, twin=None):
        values = list(values)
        self.median = median(values)
        self.spread = spread(values)
        self.unit = unit
        self.higher_is_better = higher_is_better
        self.twin = twin  # the CUDA C++ twin's median, for context

    def as_json(self):
        out = {"median": self.median, "unit": self.unit}
        if self.spread is not None:
            out["spread"] = round(self.spread, 4)
        if self.higher_is_better:
            out["higher_is_better"] = True
        if self.twin is not None:
            out["twin"] = self.twin
        return out


def jacobi_name(fields, pes):
    graph = f" graph={fields['graph']}" if fields.get("graph") else ""
    return (f"jacobi {fields.get('variant')} pes={pes} nx={fields.get('nx')} ny={fields.get('ny')} "
            f"iters={fields.get('iters')} norm_every={fields.get('norm_every')}{graph}")


def bench_cells(paths):
    """The cells of bench/run-bench.sh's result files, read as report.py reads them."""
    records = []
    for path in paths:
        records += read_results(path)
    cells = {}
    for case in micro_cases(records).values():
        bench, scope, size, grid, pes = case.key
        name = f"micro {bench} scope={scope} bytes={size} grid={grid} pes={pes}"
        cells[name] = Cell(case.values["rust"].values(), case.unit, case.higher_is_better,
                           case.figure("cuda"))
    timing, _checks = jacobi_runs(records)
    for (variant, pes), per in timing.items():
        rust = list(per.get("rust", {}).values())
        if not rust:
            continue
        cuda = [number(r.get("seconds_per_iter")) for r in per.get("cuda", {}).values()]
        cells[jacobi_name(rust[0], pes)] = Cell(
            [number(r.get("seconds_per_iter")) for r in rust], "s/iteration", False,
            median(cuda))
    return cells


def latency_cells(paths):
    """The cells of bench/run-latency.sh's result files (latency_report.py reads them)."""
    runs, _failed = latency_report.read(paths)
    cells = {}
    for (key, impl), got in runs.items():
        if impl != "rust":
            continue
        pes = key[1]
        twin = runs.get((key, "cuda"))
        cells[jacobi_name(got[0], pes)] = Cell(
            [float(f["seconds_per_iter"]) for f in got], "s/iteration", False,
            statistics.median(float(f["seconds_per_iter"]) for f in twin) if twin else None)
    return cells


def cells_of(suite, paths):
    return latency_cells(paths) if suite.startswith("latency") else bench_cells(paths)


def read_baseline(path):
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def change_of(now, then, floor):
    """(change, band): change > 0 is the fraction by which the cell got slower (time up, or rate
    down), < 0 faster; band is the cell's noise band. None without both figures."""
    if not now.median or not then.get("median"):
        return None
    band = max(floor, now.spread or 0.0, then.get("spread") or 0.0)
    if then.get("higher_is_better"):
        return then["median"] / now.median - 1.0, band
    return now.median / then["median"] - 1.0, band


def slower(now, then, floor):
    """(change, band) where `now` is slower than `then` beyond the band, else None."""
    verdict = change_of(now, then, floor)
    return verdict if verdict and verdict[0] > verdict[1] else None


def fmt(value, unit):
    if value is None:
        return "–"
    if unit == "s/iteration":
        return f"{value * 1e6:.2f} µs"
    return f"{value:.4g} {unit}"


def check(suite, gpu, paths, machine, out=sys.stdout):
    """Prints the guard's verdict; returns the exit status (1: a cell is slower)."""
    path = baseline_path(gpu)
    baseline = read_baseline(path)
    what = f"baseline guard ({suite}, {gpu or 'unknown GPU'})"
    if baseline is None or suite not in baseline.get("suites", {}):
        print(f"{what}: no baseline for this GPU model and suite in {os.path.relpath(path)}: nothing "
              f"compared (bench/reporting baseline accept writes one)", file=out)
        return 0
    accepted = baseline["suites"][suite]
    floor = accepted.get("band", BAND)
    cells = cells_of(suite, paths)
    differing = {k: (machine.get(k, ""), v) for k, v in accepted.get("args", {}).items()
                 if k in machine and machine.get(k, "") != v}
    if differing:
        cells = {k: c for k, c in cells.items() if not k.startswith("micro ")}
        print(f"{what}: micro-benchmark cells not compared, their arguments differ from the "
              f"baseline's: " + "; ".join(f"{k} '{now}' (baseline '{then}')" for k, (now, then) in differing.items()),
              file=out)
    compared = [k for k in cells if k in accepted["cells"]]
    bad, better = [], []
    for name in sorted(compared):
        verdict = change_of(cells[name], accepted["cells"][name], floor)
        if verdict and verdict[0] > verdict[1]:
            bad.append((name, verdict))
        elif verdict and -verdict[0] > verdict[1]:
            better.append((name, verdict))
    new = len(cells) - len(compared)
    print(f"{what}: {len(compared)} cell(s) compared with {os.path.relpath(path)} "
          f"({accepted.get('source', 'source not recorded')}), {new} without a baseline, "
          f"{len(bad)} slower than the baseline beyond the noise band, {len(better)} faster", file=out)
    # The largest gains, for the record (a baseline is raised only on purpose, with `accept`).
    for name, (change, band) in sorted(better, key=lambda item: item[1][0])[:10]:
        then = accepted["cells"][name]
        print(f"  faster {name}: {fmt(cells[name].median, cells[name].unit)} against "
              f"{fmt(then['median'], cells[name].unit)}, {change:+.1%} (band {band:.1%})", file=out)
    for name, (change, band) in bad:
        now, then = cells[name], accepted["cells"][name]
        twin = ""
        if now.twin and then.get("twin"):
            twin_change = then["twin"] / now.twin - 1.0 if then.get("higher_is_better") else now.twin / then["twin"] - 1.0
            twin = f"; the CUDA C++ twin {twin_change:+.1%}"
        print(f"  SLOWER {name}: {fmt(now.median, now.unit)} against {fmt(then['median'], now.unit)}, "
              f"{change:+.1%} (band {band:.1%}){twin}", file=out)
    return 1 if bad else 0


def dumps(baseline):
    """The baseline as JSON, one cell a line, so that an update's diff shows the cells it moved."""
    one = lambda value: json.dumps(value, ensure_ascii=False)  # noqa: E731
    suites = []
    for name, suite in baseline["suites"].items():
        head = [f'   {one(k)}: {one(v)}' for k, v in suite.items() if k != "cells"]
        cells = ",\n".join(f'    {one(k)}: {one(v)}' for k, v in suite["cells"].items())
        suites.append(f'  {one(name)}: {{\n' + ",\n".join(head + [f'   "cells": {{\n{cells}\n   }}']) + "\n  }")
    return (f'{{\n "gpu": {one(baseline["gpu"])},\n "suites": {{\n' + ",\n".join(suites) + "\n }\n}\n")


def accept(suite, gpu, paths, machine, source, only):
    path = baseline_path(gpu)
    baseline = read_baseline(path) or {"gpu": gpu.split(",")[0].strip(), "suites": {}}
    accepted = baseline["suites"].setdefault(suite, {"band": BAND, "cells": {}})
    cells = cells_of(suite, paths)
    chosen = {k: c for k, c in cells.items() if not only or any(word in k for word in only)}
    accepted["cells"].update({k: c.as_json() for k, c in chosen.items() if c.median})
    accepted["cells"] = dict(sorted(accepted["cells"].items()))
    accepted["source"] = source
    if not suite.startswith("latency"):
        accepted["args"] = {k: machine[k] for k in MICRO_ARGS if k in machine}
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(dumps(baseline))
    print(f"baseline: {len(chosen)} cell(s) of {suite} written to {os.path.relpath(path)}; say why in "
          f"bench/results/README.md")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=("check", "accept"))
    parser.add_argument("--suite", required=True)
    parser.add_argument("--gpu", required=True, help="the GPU's name, as nvidia-smi gives it")
    parser.add_argument("--results", required=True, nargs="+")
    parser.add_argument("--machine", help="the harness's machine file (run-bench.sh's arguments)")
    parser.add_argument("--source", help="accept: which run the figures come from, and why")
    parser.add_argument("--only", nargs="*", default=[], help="accept: only cells whose name holds a word")
    args = parser.parse_args(argv)
    machine = read_machine(args.machine)
    if args.action == "accept":
        if not args.source:
            parser.error("accept needs --source: which run the figures come from, and why")
        accept(args.suite, args.gpu, args.results, machine, args.source, args.only)
        return 0
    return check(args.suite, args.gpu, args.results, machine)


if __name__ == "__main__":
    sys.exit(main())
