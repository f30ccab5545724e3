"""The safe layer against the raw tier: medians of micro's put_bw/get_bw lines from runs of the raw
kernels (`raw*.txt`) and of their safe-layer twins (`safe*.txt`, `micro --safe`), as a Markdown
table of safe ÷ raw per cell with the noise band (the larger relative spread of the two), and the
cells outside it. Standard library only.

    python3 bench/reporting safe_layer_report RESULTS_DIR > REPORT.md
"""
import glob
import os
import re
import statistics
import sys

from .parse import fields
from .stats import spread

# A ratio within this much of 1 counts as equal even where both programs were steadier than it.
FLOOR = 0.03


def read(directory):
    """{(bench, scope, bytes, grid): {"raw": [values], "safe": [values]}} from the result lines."""
    cells = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.txt"))):
        match = re.fullmatch(r"(raw|safe)\d+\.txt", os.path.basename(path))
        if not match:
            continue
        with open(path) as lines:
            for line in lines:
                if "result:" not in line:
                    continue
                result = fields(line.split("result:", 1)[1])
                key = (result["bench"], result["scope"], int(result["bytes"]), int(result["grid"]))
                cells.setdefault(key, {}).setdefault(match.group(1), []).append(float(result["value"]))
    return cells


def report(cells):
    rows, outside = [], []
    for key, runs in sorted(cells.items()):
        if "raw" not in runs or "safe" not in runs:
            outside.append((key, "missing"))
            continue
        raw, safe = statistics.median(runs["raw"]), statistics.median(runs["safe"])
        # A side with one round has no spread: the floor stands for it.
        band = max(spread(runs["raw"]) or 0.0, spread(runs["safe"]) or 0.0, FLOOR)
        ratio = safe / raw
        verdict = "≈" if abs(ratio - 1) <= band else ("faster" if ratio > 1 else "SLOWER")
        if verdict == "SLOWER":
            outside.append((key, f"{ratio:.3f}"))
        bench, scope, size, grid = key
        rows.append(f"| {bench} | {scope} | {size} | {grid} | {raw:.1f} | {safe:.1f} | {ratio:.3f} | ±{band:.3f} | {verdict} |")
    ratios = [statistics.median(r["safe"]) / statistics.median(r["raw"]) for r in cells.values() if "raw" in r and "safe" in r]
    out = ["# Safe layer ÷ raw tier, micro-benchmarks", ""]
    if ratios:
        out.append(f"{len(ratios)} cells; safe ÷ raw geometric mean {statistics.geometric_mean(ratios):.3f}, "
                   f"min {min(ratios):.3f}, max {max(ratios):.3f}; {len(outside)} cell(s) slower outside the band.")
    out += ["", "| bench | scope | bytes | grid | raw GB/s | safe GB/s | safe ÷ raw | band | verdict |",
            "|---|---|---|---|---|---|---|---|---|", *rows, ""]
    if outside:
        out.append("Slower outside the band: " + ", ".join(f"{k[0]} {k[1]} {k[2]} B grid {k[3]} ({why})" for k, why in outside))
    return "\n".join(out) + "\n", not outside


if __name__ == "__main__":
    text, _ = report(read(sys.argv[1]))
    sys.stdout.write(text)
