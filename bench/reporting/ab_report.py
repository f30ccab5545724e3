"""The table of bench/run-ab.sh: for every cell (a micro-benchmark case, or a Jacobi variant on a
grid with a norm cadence, at a PE count) the median of each build's rounds, each build ÷ the
first, and the first build's spread over its rounds (the noise band of that cell). Lower is
better for every figure here (µs, µs per iteration, and for bandwidths ms per GB, the inverse of
the GB/s the benchmark prints, so that one reading of the ratios holds for every cell).

    python3 bench/reporting ab_report RESULTS BUILD BUILD...
"""

import sys

from .parse import fields
from .stats import geomean, median, spread

# Micro-benchmark lines name the case by these keys; Jacobi lines by the others.
MICRO_KEYS = ("bench", "scope", "bytes", "pes")
JACOBI_KEYS = ("variant", "nx", "norm_every", "pes")


def cell_of(record):
    """(cell name, figure) of one result line, or None for a line without a figure."""
    if "bench" in record and "value" in record:
        name = "micro " + " ".join(f"{k}={record.get(k, '-')}" for k in MICRO_KEYS)
        if record.get("unit") == "GB/s":
            # Bandwidth cells differ by grid as well; their figure becomes time per volume.
            return f"{name} grid={record.get('grid', '-')} [ms/GB]", 1000.0 / float(record["value"])
        return name, float(record["value"])
    if "variant" in record and "seconds_per_iter" in record:
        name = "jacobi " + " ".join(f"{k}={record.get(k, '-')}" for k in JACOBI_KEYS)
        return name, float(record["seconds_per_iter"]) * 1e6
    return None


def collect(lines):
    """{cell: {build: [figures]}} from tagged result lines."""
    cells = {}
    for line in lines:
        _, sep, rest = line.strip().partition("result: ")
        if not sep:
            continue
        record = fields(rest)
        found = cell_of(record)
        if found and "build" in record:
            name, figure = found
            cells.setdefault(name, {}).setdefault(record["build"], []).append(figure)
    return cells


def render(cells, builds):
    base = builds[0]
    rows = [
        "| cell | " + " | ".join(builds) + " | " + " | ".join(f"{b} ÷ {base}" for b in builds[1:])
        + f" | {base} spread |",
        "|---|" + "---|" * (2 * len(builds)),
    ]
    ratios = {b: [] for b in builds[1:]}
    missing = 0
    for name in sorted(cells):
        runs = cells[name]
        if not all(runs.get(b) for b in builds):
            missing += 1
            continue
        medians = {b: median(runs[b]) for b in builds}
        for b in builds[1:]:
            ratios[b].append(medians[b] / medians[base])
        band = spread(runs[base])
        rows.append(
            f"| {name} | " + " | ".join(f"{medians[b]:.3f}" for b in builds) + " | "
            + " | ".join(f"{medians[b] / medians[base]:.3f}" for b in builds[1:])
            + f" | {'–' if band is None else f'{band:.3f}'} |"
        )
    rows.append("")
    for b in builds[1:]:
        r = ratios[b]
        if r:
            rows.append(f"{b} ÷ {base}: {len(r)} cells, geometric mean {geomean(r):.3f}, "
                        f"from {min(r):.3f} to {max(r):.3f}")
    if missing:
        rows.append(f"{missing} cell(s) without a figure from every build")
    return "\n".join(rows), missing


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8", errors="replace") as f:
        text, missing = render(collect(f), argv[2:])
    print(text)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
