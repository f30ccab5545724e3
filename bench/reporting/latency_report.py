"""The latency-regime report: `python3 bench/reporting latency_report PREFIX RESULTS...` writes
PREFIX.md and PREFIX.png from the result lines of bench/run-latency.sh (several files are
concatenated).

A cell is one grid size, PE count, norm cadence and variant; its figure is the median of its runs
(one per implementation per call of the harness). The floor of a cell is built from yardsticks the
Rust run measured beside it: memory = 2·nx·ny·4 bytes at the copy rate of a working set of one
grid (fit_copy_gbps), one launch (launch_us) for variants that launch per iteration, and one
meeting of every PE (barrier_us) for the variants that meet every iteration."""
import statistics
import sys
from collections import defaultdict

from .parse import fields
from .plot import log_log, pyplot

VARIANTS = ["put-block", "p", "signal", "overlap", "persistent", "put-block+graph", "grid-pack", "grid-p"]
MEETS = {"put-block", "p", "put-block+graph", "grid-pack", "grid-p"}
LAUNCHES = {"put-block", "p", "signal", "overlap", "grid-pack", "grid-p"}
NOISE = 0.03


def read(paths):
    runs, failed = defaultdict(list), []
    for path in paths:
        with open(path) as lines:
            for line in lines:
                if line.startswith("failed: "):
                    failed.append(line.strip())
                if not line.startswith("result: "):
                    continue
                f = fields(line.partition(": ")[2])
                variant = f["variant"] + ("+graph" if "graph" in f else "")
                key = (int(f["nx"]), int(f["pes"]), int(f["norm_every"]), variant)
                runs[(key, f["impl"])].append(f)
    return runs, failed


def us(f):
    return float(f["seconds_per_iter"]) * 1e6


def median_us(runs, key, impl):
    got = runs.get((key, impl))
    return statistics.median(us(f) for f in got) if got else None


def floor(runs, key):
    got = runs.get((key, "rust"))
    if not got:
        return None
    f = got[0]
    nx, pes, _, variant = key
    memory = 2 * nx * nx * 4 / (float(f["fit_copy_gbps"]) * 1e9) * 1e6
    launch = float(f["launch_us"]) if variant in LAUNCHES else 0.0
    meet = float(f["barrier_us"]) if variant in MEETS and pes > 1 else 0.0
    return memory, launch, meet, max(memory, launch) + meet


def fmt(x, digits=2):
    return "–" if x is None else f"{x:.{digits}f}"


def main():
    prefix, paths = sys.argv[1], sys.argv[2:]
    runs, failed = read(paths)
    keys = sorted({k for k, _ in runs})
    grids = sorted({k[0] for k in keys})
    pes_list = sorted({k[1] for k in keys})
    norms = sorted({k[2] for k in keys})
    variants = [v for v in VARIANTS if any(k[3] == v for k in keys)]
    counts = sorted({len(got) for got in runs.values()})
    per_program = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
    out = ["# Jacobi in the latency-bound regime (one GPU)", "",
           "Method: `bench/run-latency.sh` runs `jacobi` (Rust) and the CUDA C++ twin "
           "(`bench/reference/jacobi.cu`, the same kernels written in CUDA C++) alternately, one after the "
           "other for each cell, every PE count under MPS on one GPU; 5000 iterations up to 2048², 1000 "
           "above; each program times its iteration loop with CUDA events after a warm-up and reports the "
           "slowest PE's µs per iteration. `put-block+graph` replays CUDA graphs of 100 iterations. "
           "`grid-pack` and `grid-p` are `jacobi2d-grid`'s (Rust only: no twin). A cell shows the median "
           f"of its runs (here {per_program} per program). The floor's yardsticks come from the Rust run of the same "
           "cell: `fit_copy_gbps` (a working set of one grid copied back and forth in one launch, or by "
           "the copy engine, the faster), `launch_us` (an empty kernel launched 1000 times back to back) and "
           "`barrier_us` (the one-thread barrier kernel, every PE launching it, 1000 times). A `–` is a "
           "cell not run (budget) or without a twin.", ""]
    best = {}
    ratios = []
    for pes in pes_list:
        for every in norms:
            out += [f"## {pes} PE(s), norm every {every} iteration(s)", "",
                    "µs per iteration: Rust / CUDA C++ (Rust ÷ CUDA). The floor column is put-block's, max(memory, launch) + meeting; signal and overlap have no meeting, persistent neither a launch nor a meeting (memory alone).", "",
                    "| grid | " + " | ".join(variants) + " | floor: memory, launch, meeting → floor |",
                    "|---|" + "---|" * len(variants) + "---|"]
            for n in grids:
                row = [f"{n}²"]
                floors = None
                for v in variants:
                    key = (n, pes, every, v)
                    r, c = median_us(runs, key, "rust"), median_us(runs, key, "cuda")
                    if r is not None:
                        best.setdefault((n, pes, every), []).append((r, v))
                    if r is not None and c is not None:
                        ratios.append((r / c, key))
                        row.append(f"{r:.2f} / {c:.2f} ({r / c:.3f})")
                    else:
                        row.append(fmt(r))
                    fl = floor(runs, key)
                    if fl and v == "put-block":
                        floors = fl
                row.append("–" if floors is None else
                           f"{floors[0]:.2f}, {floors[1]:.2f}, {floors[2]:.2f} → {floors[3]:.2f}")
                out.append("| " + " | ".join(row) + " |")
            out.append("")

    def best_of(n, pes, every):
        got = best.get((n, pes, every))
        return min(got) if got else (None, None)

    def target(text, value, limit, variant=None):
        ok = value is not None and value <= limit
        mark = "✓" if ok else ("–" if value is None else "✗")
        who = f" ({variant})" if variant else ""
        return f"| {text} | ≤ {limit} | {fmt(value)}{who} | {mark} |"

    out += ["## Targets (medians, µs per iteration)", "", "| target | limit | measured | met |", "|---|---|---|---|"]
    for text, n, pes, every, limit in [("1024², norm every 100, 1 PE", 1024, 1, 100, 3.0),
                                       ("1024², norm every 100, 4 PEs", 1024, 4, 100, 8.0),
                                       ("2048², norm every 100, 4 PEs", 2048, 4, 100, 12.0),
                                       ("1024², norm every iteration, 1 PE", 1024, 1, 1, 5.0),
                                       ("1024², norm every iteration, 4 PEs", 1024, 4, 1, 15.0)]:
        value, variant = best_of(n, pes, every)
        out.append(target(text + ", best variant", value, limit, variant))
    worst = max(((r, v) for (n, pes, every), got in best.items() if (n, pes, every) == (1024, 4, 1)
                 for r, v in got), default=(None, None))
    out.append(target("1024², norm every iteration, 4 PEs, worst variant", worst[0], 35.0, worst[1]))
    for (n, pes, every), got in sorted(best.items()):
        if n > 2048:
            continue
        persistent = [r for r, v in got if v == "persistent"]
        others = [r for r, v in got if v != "persistent"]
        if persistent and others:
            ok = persistent[0] <= min(others) * (1 + NOISE)
            out.append(f"| persistent no slower than the others, {n}², {pes} PE(s), norm every {every} | "
                       f"≤ {min(others):.2f} (+3 %) | {persistent[0]:.2f} | {'✓' if ok else '✗'} |")
    above = [(r, k) for r, k in ratios if r > 1 + NOISE]
    out.append(f"| Rust ≤ 1.00 × CUDA C++ (±3 %) | {len(ratios)} cells | {len(above)} above the band"
               f"{', worst ' + f'{max(above)[0]:.3f} at ' + str(max(above)[1]) if above else ''} | "
               f"{'✓' if not above and ratios else '✗'} |")
    big = runs.get(((16384, 1, 100, "put-block"), "rust"))
    if big:
        fraction = statistics.median(float(f["floor_fraction"]) for f in big)
        out.append(f"| 16384², 1 PE, put-block: fraction of the copy rate | ≥ 0.95 | {fraction:.3f} | "
                   f"{'✓' if fraction >= 0.95 else '✗'} |")
    out += ["", f"Ratios: geometric mean {statistics.geometric_mean([r for r, _ in ratios]):.3f} over "
            f"{len(ratios)} cells." if ratios else "", ""]
    if failed:
        out += ["## Failed runs", ""] + [f"- `{line}`" for line in failed] + [""]
    open(prefix + ".md", "w").write("\n".join(out))
    print("\n".join(out[-12 - len(failed):]))
    plt, _why = pyplot()
    if plt is None:
        print("no matplotlib: the plot is skipped")
        return
    fig, axes = plt.subplots(len(norms), len(pes_list), figsize=(5 * len(pes_list), 4 * len(norms)), squeeze=False)
    for i, every in enumerate(norms):
        for j, pes in enumerate(pes_list):
            ax = axes[i][j]
            for index, v in enumerate(variants):
                for impl, style in (("rust", "-"), ("cuda", "--")):
                    pts = [(n, median_us(runs, (n, pes, every, v), impl)) for n in grids]
                    pts = [(n, t) for n, t in pts if t is not None]
                    if pts:
                        ax.plot([n for n, _ in pts], [t for _, t in pts], style, marker="o", markersize=3,
                                color=f"C{index}", label=f"{v} ({impl})")
            log_log(ax, f"{pes} PE(s), norm every {every}", "grid side", "µs per iteration")
    labels = {}
    for ax in fig.axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            labels.setdefault(label, handle)
    fig.legend(list(labels.values()), list(labels.keys()), loc="center right", fontsize=7)
    fig.tight_layout(rect=(0, 0, 0.86, 1))
    fig.savefig(prefix + ".png", dpi=90)


if __name__ == "__main__":
    main()
