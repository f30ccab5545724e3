#!/usr/bin/env python3
"""The report of bench/run-bench.sh: Rust kernels against the same kernels in CUDA C++.

    python3 bench/report.py --results RESULTS.txt --machine MACHINE.txt --prefix OUT/bench-DATE

reads the tagged result lines the harness collected and writes PREFIX.md (method, machine, every
figure, every ratio, the noise band, verdicts against the targets) and PREFIX-bandwidth.png,
PREFIX-latency.png, PREFIX-jacobi.png (when matplotlib is there). Prints a short summary.

Input lines (one per measurement; the harness appends run_impl=, round= and job=):

    result: bench=put_bw impl=rust scope=block bytes=4096 grid=1 pes=2 value=1.2 unit=GB/s ...
    result: variant=p pes=2 nx=... seconds_per_iter=... gbps=... check=pass norm=... run_impl=rust ...
    check: bench=put_bw impl=cuda bytes=268435456 status=pass mismatches=0 ...
    skip: bench=... reason=... ...
    job: name=... run_impl=... round=... status=0 seconds=12.3
    na: bench=jacobi variant=nccl reason=one GPU

Only the standard library is needed for the Markdown; matplotlib only for the plots.
"""

import argparse
import math
import os
import re
import statistics
import sys
from collections import defaultdict

TOLERANCE = 0.03  # the ±3 % band of the targets
KEY = re.compile(r"(?:^|\s)([A-Za-z_][A-Za-z0-9_]*)=")

METHOD = """\
## Method

- **Pairs.** Every benchmark exists twice: a Rust kernel (`bench/micro/kernels`, `examples/jacobi/kernels`)
  launched by a Rust runner, and a CUDA C++ kernel (`bench/reference/*.cu`, built here with
  `nvcc -O3 -rdc=true -arch=sm_90` against the same NVSHMEM) launched by a C++ runner that mirrors
  the Rust one: the same NVSHMEM calls, launch shapes, allocations, order of cases, timing and output.
  Both start under the same launcher (`nvshmemrun`) with the same environment.
- **Alternation and rounds.** The harness runs each pair alternately, Rust then CUDA, twice (round 1,
  round 2), so that slow drift of the machine hits both. A figure below is the median over the rounds
  (with two rounds, their mean).
- **One-sided micro-benchmarks** (`put_bw`, `get_bw`, `p_lat`, `put_lat`; PE 0 issues, the peer PE is
  idle): per case, untimed warm-up launches, then timed launches, each between two CUDA events
  recorded on the stream right behind a 50 µs spinning kernel (so the start event is not taken on an
  idle GPU while the host is still launching). Median over the timed launches. A bandwidth launch
  repeats the transfer enough times to move ≈256 MiB (2 to 1000 times); bandwidth = bytes × repeats ÷
  time, in GB/s (10⁹ B/s), the bytes counted once. Latency launches do `--lat-iters` operations (put
  latency: no more than 1 MiB of puts, at least 10) each followed by `quiet`; latency = time ÷
  operations.
- **Two-sided micro-benchmarks** (`barrier_lat`, `pingpong_p`, `pingpong_signal`; every PE launches
  cooperatively): 20 untimed barriers or round trips line the PEs up inside the kernel, then the GPU's
  `%globaltimer` times the next `--lat-iters`; median over the launches. Ping-pong latency is half a
  round trip.
- **Jacobi.** Each program times its iteration loop with CUDA events after initialisation and reports
  seconds per iteration; `gbps` counts each updated cell read and written once; `copy_gbps` is the
  GPU's best device-to-device copy rate (read + write); `floor_fraction` = gbps ÷ copy rate. Checks run
  on a small grid with `--check` (CUDA: against the single-GPU code on the same GPU).
- **Ratios and targets.** Bandwidth: Rust ÷ CUDA ≥ 1.00; latency and time: Rust ÷ CUDA ≤ 1.00.
  ✓ meets the target outright; ≈ misses it by less than 3 %; ✗ misses it by more.
- **Noise band.** The same program timed twice (round 2 ÷ round 1, for Rust and for CUDA alike) gives
  the run-to-run spread; the band of a family is the 90th percentile of |ratio − 1| over its cases and
  both programs. A band above 3 % means the comparison in that family is not conclusive at ±3 %.
"""


def fields(text):
    """`k=v k2=v two words k3=v` → dict; a value runs up to the next ` key=`."""
    marks = list(KEY.finditer(text))
    out = {}
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        out[mark.group(1)] = text[mark.end():end].strip()
    return out


def read_results(path):
    records = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            kind, sep, rest = line.partition(": ")
            if not sep or kind not in ("result", "check", "skip", "job", "na"):
                continue
            record = fields(rest)
            record["kind"] = kind
            record.setdefault("impl", record.get("run_impl", "?"))
            records.append(record)
    return records


def read_machine(path):
    machine = {}
    if path and os.path.exists(path):
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                key, sep, value = line.partition(": ")
                if sep:
                    machine[key.strip()] = value.strip()
    return machine


def number(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def percentile(values, q):
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    position = q * (len(values) - 1)
    low = math.floor(position)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (position - low)


def self_ratio(by_round):
    """Round 2 ÷ round 1 of one program, or None."""
    if 1 in by_round and 2 in by_round and by_round[1]:
        return by_round[2] / by_round[1]
    return None


def verdict(ratio, higher_is_better):
    if ratio is None:
        return "–"
    if (ratio >= 1.0) if higher_is_better else (ratio <= 1.0):
        return "✓"
    if (ratio >= 1.0 - TOLERANCE) if higher_is_better else (ratio <= 1.0 + TOLERANCE):
        return "≈"
    return "✗"


def fmt(value, digits=3):
    if value is None:
        return "–"
    if value == 0:
        return "0"
    magnitude = abs(value)
    if magnitude >= 1000:
        return f"{value:,.0f}"
    if magnitude >= 100:
        return f"{value:.1f}"
    if magnitude >= 1:
        return f"{value:.{digits}g}" if magnitude < 10 else f"{value:.2f}"
    return f"{value:.{digits}g}"


def fmt_ratio(value):
    return "–" if value is None else f"{value:.3f}"


def pct(value):
    return "–" if value is None else f"{100 * value:.1f} %"


def human_bytes(n):
    n = int(n)
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} B"


# ------------------------------------------------------------------------------------------------
# Micro-benchmarks

BENCH_ORDER = ["put_bw", "get_bw", "p_lat", "put_lat", "barrier_lat", "pingpong_p", "pingpong_signal"]
SCOPE_ORDER = {"block": 0, "warp": 1, "thread": 2}


class Case:
    """One micro-benchmark case: its values per program and round."""

    def __init__(self, key, unit):
        self.key = key  # (bench, scope, bytes, grid, pes)
        self.unit = unit
        self.values = {"rust": {}, "cuda": {}}

    @property
    def higher_is_better(self):
        return self.unit == "GB/s"

    def figure(self, impl):
        return median(self.values[impl].values())

    def ratio(self):
        rust, cuda = self.figure("rust"), self.figure("cuda")
        return rust / cuda if rust and cuda else None

    def noise(self):
        """|self-ratio − 1| of each program that ran twice."""
        out = []
        for impl in ("rust", "cuda"):
            r = self_ratio(self.values[impl])
            if r is not None:
                out.append(abs(r - 1.0))
        return out


def micro_cases(records):
    cases = {}
    for r in records:
        if r["kind"] != "result" or "bench" not in r:
            continue
        value = number(r.get("value"))
        impl = r["impl"] if r["impl"] in ("rust", "cuda") else r.get("run_impl")
        if value is None or impl not in ("rust", "cuda"):
            continue
        key = (r["bench"], r.get("scope", "-"), int(r.get("bytes", 0) or 0), int(r.get("grid", 1) or 1),
               int(r.get("pes", 0) or 0))
        case = cases.setdefault(key, Case(key, r.get("unit", "")))
        round_ = int(r.get("round", 1) or 1)
        case.values[impl][round_] = value
    return cases


def sort_key(case):
    bench, scope, size, grid, pes = case.key
    order = BENCH_ORDER.index(bench) if bench in BENCH_ORDER else len(BENCH_ORDER)
    return (order, SCOPE_ORDER.get(scope, 9), size, grid, pes)


def family_summary(cases):
    rows = []
    families = defaultdict(list)
    for case in cases.values():
        families[case.key[0]].append(case)
    for bench in sorted(families, key=lambda b: BENCH_ORDER.index(b) if b in BENCH_ORDER else 99):
        group = families[bench]
        ratios = [c.ratio() for c in group if c.ratio() is not None]
        noises = [n for c in group for n in c.noise()]
        band = percentile(noises, 0.9)
        verdicts = [verdict(c.ratio(), c.higher_is_better) for c in group]
        higher = group[0].higher_is_better
        overall = "–"
        if ratios:
            if "✗" in verdicts:
                overall = "FAIL"
            else:
                overall = "PASS"
            if band is not None and band > TOLERANCE:
                overall += " (noise band > 3 %: not conclusive)"
        rows.append({
            "bench": bench, "unit": group[0].unit, "target": "≥ 1.00" if higher else "≤ 1.00",
            "cases": len(group), "compared": len(ratios), "geomean": geomean(ratios),
            "worst": (min(ratios) if higher else max(ratios)) if ratios else None,
            "best": (max(ratios) if higher else min(ratios)) if ratios else None,
            "band": band, "ok": verdicts.count("✓"), "near": verdicts.count("≈"), "bad": verdicts.count("✗"),
            "verdict": overall,
        })
    return rows


def micro_markdown(cases, checks, skips):
    out = []
    if not cases:
        return ["No micro-benchmark results.", ""]
    summary = family_summary(cases)
    out += ["## Micro-benchmarks: summary", "",
            "| benchmark | unit | target (Rust ÷ CUDA) | cases | compared | geo-mean ratio | worst | best | "
            "noise band | ✓ | ≈ | ✗ | verdict |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in summary:
        out.append(f"| {s['bench']} | {s['unit']} | {s['target']} | {s['cases']} | {s['compared']} | "
                   f"{fmt_ratio(s['geomean'])} | {fmt_ratio(s['worst'])} | {fmt_ratio(s['best'])} | {pct(s['band'])} | "
                   f"{s['ok']} | {s['near']} | {s['bad']} | {s['verdict']} |")
    out.append("")
    if checks:
        out += ["Data checks after each bandwidth sweep (the receiving PE compares its buffer with the "
                "sender's pattern):", "",
                "| benchmark | program | round | bytes | status | mismatches |", "|---|---|---|---|---|---|"]
        for c in checks:
            out.append(f"| {c.get('bench')} | {c['impl']} | {c.get('round', '–')} | "
                       f"{human_bytes(c.get('bytes', 0) or 0)} | {c.get('status')} | {c.get('mismatches')} |")
        out.append("")

    # bandwidth as ratio matrices: one per (bench, scope), sizes down, grids across
    for bench in ("put_bw", "get_bw"):
        group = [c for c in cases.values() if c.key[0] == bench]
        if not group:
            continue
        grids = sorted({c.key[3] for c in group})
        out += [f"### {bench}: Rust ÷ CUDA bandwidth (target ≥ 1.00)", ""]
        for scope in sorted({c.key[1] for c in group}, key=lambda s: SCOPE_ORDER.get(s, 9)):
            out += [f"**{scope} scope** — ratio, with Rust / CUDA GB/s", "",
                    "| size | " + " | ".join(f"grid {g}" for g in grids) + " |",
                    "|---|" + "---|" * len(grids)]
            for size in sorted({c.key[2] for c in group if c.key[1] == scope}):
                cells = []
                for g in grids:
                    c = next((c for c in group if c.key[1] == scope and c.key[2] == size and c.key[3] == g), None)
                    if c is None:
                        cells.append("–")
                        continue
                    r = c.ratio()
                    cells.append(f"{verdict(r, True)} {fmt_ratio(r)} ({fmt(c.figure('rust'))} / {fmt(c.figure('cuda'))})")
                out.append(f"| {human_bytes(size)} | " + " | ".join(cells) + " |")
            out.append("")

    lat = sorted((c for c in cases.values() if not c.higher_is_better), key=sort_key)
    if lat:
        out += ["### Latencies: Rust ÷ CUDA (target ≤ 1.00)", "",
                "| benchmark | scope | bytes | Rust µs | CUDA µs | Rust ÷ CUDA | Rust r2÷r1 | CUDA r2÷r1 | |",
                "|---|---|---|---|---|---|---|---|---|"]
        for c in lat:
            r = c.ratio()
            out.append(f"| {c.key[0]} | {c.key[1]} | {human_bytes(c.key[2])} | {fmt(c.figure('rust'), 4)} | "
                       f"{fmt(c.figure('cuda'), 4)} | {fmt_ratio(r)} | {fmt_ratio(self_ratio(c.values['rust']))} | "
                       f"{fmt_ratio(self_ratio(c.values['cuda']))} | {verdict(r, False)} |")
        out.append("")
    if skips:
        out += ["### Cases that did not run", "", "| job | program | round | case | reason |", "|---|---|---|---|---|"]
        for s in skips:
            case = " ".join(f"{k}={s[k]}" for k in ("bench", "scope", "bytes", "grid", "program") if k in s)
            out.append(f"| {s.get('job', '–')} | {s['impl']} | {s.get('round', '–')} | {case} | "
                       f"{s.get('reason', '').replace('|', '/')} |")
        out.append("")
    return out


def micro_appendix(cases):
    out = ["## Appendix: every micro-benchmark figure", "",
           "| benchmark | scope | bytes | grid | PEs | unit | Rust r1 | Rust r2 | CUDA r1 | CUDA r2 | "
           "Rust ÷ CUDA | Rust r2÷r1 | CUDA r2÷r1 | |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in sorted(cases.values(), key=sort_key):
        r = c.ratio()
        v = c.values
        out.append(f"| {c.key[0]} | {c.key[1]} | {c.key[2]} | {c.key[3]} | {c.key[4]} | {c.unit} | "
                   f"{fmt(v['rust'].get(1), 5)} | {fmt(v['rust'].get(2), 5)} | {fmt(v['cuda'].get(1), 5)} | "
                   f"{fmt(v['cuda'].get(2), 5)} | {fmt_ratio(r)} | {fmt_ratio(self_ratio(v['rust']))} | "
                   f"{fmt_ratio(self_ratio(v['cuda']))} | {verdict(r, c.higher_is_better)} |")
    out.append("")
    return out


# ------------------------------------------------------------------------------------------------
# Jacobi

JACOBI_ORDER = ["p", "put-block", "signal", "overlap", "persistent", "single", "nccl"]


def jacobi_runs(records):
    """(timing runs, check runs): dicts keyed by (variant, pes) → impl → round → record."""
    timing = defaultdict(lambda: defaultdict(dict))
    checks = defaultdict(lambda: defaultdict(dict))
    for r in records:
        if r["kind"] != "result" or "variant" not in r:
            continue
        impl = r.get("run_impl", r["impl"])
        target = checks if "check" in r.get("job", "") else timing
        key = (r["variant"], int(r.get("pes", 0) or 0))
        target[key][impl][int(r.get("round", 1) or 1)] = r
    return timing, checks


def jacobi_order(key):
    variant, pes = key
    return (JACOBI_ORDER.index(variant) if variant in JACOBI_ORDER else 99, pes)


def jacobi_markdown(timing, checks, na):
    out = ["## Jacobi", ""]
    if not timing and not checks:
        out += ["No Jacobi results (dist/jacobi or the CUDA build missing?).", ""]
    any_run = next((rec for per in timing.values() for rounds in per.values() for rec in rounds.values()), None)
    if any_run:
        out += [f"Grid {any_run.get('nx')} × {any_run.get('ny')}, {any_run.get('iters')} iterations, "
                f"norm every {any_run.get('norm_every')}; device copy rate "
                f"{fmt(number(any_run.get('copy_gbps')))} GB/s.", ""]
    t1 = None
    single = timing.get(("single", 1), {}).get("cuda")
    if single:
        t1 = median(number(r.get("seconds_per_iter")) for r in single.values())
    if timing:
        out += ["| variant | PEs | Rust ms/iter | CUDA ms/iter | Rust ÷ CUDA time | Rust GB/s | CUDA GB/s | "
                "floor fraction R / C | T1 ÷ Tp (R / C) | norm R / C | Rust r2÷r1 | CUDA r2÷r1 | |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for key in sorted(timing, key=jacobi_order):
            per = timing[key]
            row = {}
            for impl in ("rust", "cuda"):
                rounds = per.get(impl, {})
                secs = {k: number(r.get("seconds_per_iter")) for k, r in rounds.items()}
                row[impl] = {
                    "s": median(secs.values()),
                    "self": self_ratio({k: v for k, v in secs.items() if v}),
                    "gbps": median(number(r.get("gbps")) for r in rounds.values()),
                    "floor": median(number(r.get("floor_fraction")) for r in rounds.values()),
                    "norm": next((r.get("norm") for r in rounds.values()), None),
                }
            rs, cs = row["rust"]["s"], row["cuda"]["s"]
            ratio = rs / cs if rs and cs else None
            speed = [f"{fmt(t1 / row[i]['s'], 3)}" if t1 and row[i]["s"] else "–" for i in ("rust", "cuda")]
            out.append(
                f"| {key[0]} | {key[1]} | {fmt(rs and rs * 1e3, 4)} | {fmt(cs and cs * 1e3, 4)} | {fmt_ratio(ratio)} | "
                f"{fmt(row['rust']['gbps'])} | {fmt(row['cuda']['gbps'])} | "
                f"{fmt(row['rust']['floor'], 3)} / {fmt(row['cuda']['floor'], 3)} | {speed[0]} / {speed[1]} | "
                f"{row['rust']['norm'] or '–'} / {row['cuda']['norm'] or '–'} | {fmt_ratio(row['rust']['self'])} | "
                f"{fmt_ratio(row['cuda']['self'])} | {verdict(ratio, False) if ratio else ''} |")
        out.append("")
        noises = [abs(x - 1) for per in timing.values() for impl in ("rust", "cuda")
                  for x in [self_ratio({k: number(r.get("seconds_per_iter")) for k, r in per.get(impl, {}).items()})]
                  if x is not None]
        band = percentile(noises, 0.9)
        out += [f"Noise band of the Jacobi timings (90th percentile of |round 2 ÷ round 1 − 1|): {pct(band)}."
                + (" Above 3 %: not conclusive." if band is not None and band > TOLERANCE else ""), ""]
        if t1:
            out += [f"T1 (CUDA single-GPU code, one PE): {fmt(t1 * 1e3, 4)} ms per iteration. T1 ÷ Tp above "
                    "compares each variant with it (on one GPU shared by the PEs, 1.0 is the ideal).", ""]
    for n in na:
        out += [f"- {n.get('variant', n.get('bench'))}: n/a ({n.get('reason')})"]
    if na:
        out.append("")
    if checks:
        out += ["Checks (`--check`, small grid):", "", "| variant | PEs | Rust | CUDA |", "|---|---|---|---|"]
        for key in sorted(checks, key=jacobi_order):
            per = checks[key]
            cell = {i: ", ".join(r.get("check", "?") for r in per.get(i, {}).values()) or "–" for i in ("rust", "cuda")}
            out.append(f"| {key[0]} | {key[1]} | {cell['rust']} | {cell['cuda']} |")
        out.append("")
    return out


# ------------------------------------------------------------------------------------------------
# Plots

def plots(prefix, cases, timing):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as error:  # noqa: BLE001 — any failure only costs the plots
        print(f"report: no plots ({error})", file=sys.stderr)
        return []
    written = []
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]

    bw = [c for c in cases.values() if c.key[0] in ("put_bw", "get_bw")]
    if bw:
        scopes = sorted({c.key[1] for c in bw}, key=lambda s: SCOPE_ORDER.get(s, 9))
        benches = [b for b in ("put_bw", "get_bw") if any(c.key[0] == b for c in bw)]
        fig, axes = plt.subplots(len(benches), len(scopes), figsize=(5 * len(scopes), 4 * len(benches)),
                                 squeeze=False, sharex=True)
        grids = sorted({c.key[3] for c in bw})
        for i, bench in enumerate(benches):
            for j, scope in enumerate(scopes):
                ax = axes[i][j]
                for k, grid in enumerate(grids):
                    sel = sorted((c for c in bw if c.key[0] == bench and c.key[1] == scope and c.key[3] == grid),
                                 key=lambda c: c.key[2])
                    for impl, style in (("rust", "-o"), ("cuda", "--x")):
                        points = [(c.key[2], c.figure(impl)) for c in sel if c.figure(impl)]
                        if points:
                            ax.plot([p[0] for p in points], [p[1] for p in points], style,
                                    color=colors[k % len(colors)], label=f"{impl}, grid {grid}")
                ax.set_xscale("log", base=2)
                ax.set_yscale("log")
                ax.set_title(f"{bench}, {scope} scope")
                ax.set_xlabel("bytes")
                ax.set_ylabel("GB/s")
                ax.grid(True, which="both", alpha=0.3)
        axes[0][0].legend(fontsize=7)
        fig.suptitle("NVSHMEM bandwidth: Rust (solid) vs CUDA C++ (dashed)")
        fig.tight_layout()
        path = f"{prefix}-bandwidth.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

        # The same cases as ratios, with the ±3 % band of the target.
        fig, axes = plt.subplots(1, len(benches), figsize=(6 * len(benches), 4), squeeze=False)
        for i, bench in enumerate(benches):
            ax = axes[0][i]
            ax.axhspan(1 - TOLERANCE, 1 + TOLERANCE, color="0.9", label="±3 %")
            ax.axhline(1.0, color="0.5", linewidth=1)
            for j, scope in enumerate(scopes):
                for k, grid in enumerate(grids):
                    sel = sorted((c for c in bw if c.key[0] == bench and c.key[1] == scope and c.key[3] == grid),
                                 key=lambda c: c.key[2])
                    points = [(c.key[2], c.ratio()) for c in sel if c.ratio()]
                    if points:
                        ax.plot([p[0] for p in points], [p[1] for p in points], ["-o", "--s", ":^"][j % 3],
                                color=colors[k % len(colors)], markersize=4, label=f"{scope}, grid {grid}")
            ax.set_xscale("log", base=2)
            ax.set_title(f"{bench}: Rust ÷ CUDA (≥ 1 is Rust as fast or faster)")
            ax.set_xlabel("bytes")
            ax.set_ylabel("ratio")
            ax.grid(True, alpha=0.3)
        axes[0][0].legend(fontsize=6, ncol=2)
        fig.tight_layout()
        path = f"{prefix}-bandwidth-ratio.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    lat = sorted((c for c in cases.values() if not c.higher_is_better), key=sort_key)
    if lat:
        labels = [f"{c.key[0]} {c.key[1]} {human_bytes(c.key[2]) if c.key[2] else ''}".strip() for c in lat]
        fig, ax = plt.subplots(figsize=(9, 0.35 * len(lat) + 1.5))
        ys = list(range(len(lat)))
        ax.barh([y - 0.2 for y in ys], [c.figure("rust") or 0 for c in lat], height=0.4, label="Rust")
        ax.barh([y + 0.2 for y in ys], [c.figure("cuda") or 0 for c in lat], height=0.4, label="CUDA C++")
        ax.set_yticks(ys)
        ax.set_yticklabels(labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.set_xlabel("µs (log)")
        ax.set_title("NVSHMEM latencies: Rust vs CUDA C++ (lower is better)")
        ax.legend()
        ax.grid(True, axis="x", which="both", alpha=0.3)
        fig.tight_layout()
        path = f"{prefix}-latency.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    if timing:
        keys = sorted(timing, key=jacobi_order)
        labels = [f"{v}\n{p} PE" for v, p in keys]
        fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(keys)), 4))
        xs = list(range(len(keys)))
        for offset, impl, label in ((-0.2, "rust", "Rust"), (0.2, "cuda", "CUDA C++")):
            heights = [1e3 * (median(number(r.get("seconds_per_iter")) for r in timing[k].get(impl, {}).values()) or 0)
                       for k in keys]
            ax.bar([x + offset for x in xs], heights, width=0.4, label=label)
        ax.set_xticks(xs)
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_ylabel("ms per iteration")
        ax.set_title("Jacobi: time per iteration (lower is better)")
        ax.legend()
        ax.grid(True, axis="y", alpha=0.3)
        fig.tight_layout()
        path = f"{prefix}-jacobi.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


# ------------------------------------------------------------------------------------------------

def jobs_markdown(jobs):
    out = ["## Appendix: runs", "", "| run | program | round | exit status | seconds |", "|---|---|---|---|---|"]
    for j in jobs:
        status = j.get("status")
        shown = {"0": "0", "124": "124 (timed out)", "137": "137 (killed after timing out)",
                 "budget": "skipped (time budget)", "skipped": "skipped (timed out before)"}.get(status, status)
        out.append(f"| {j.get('name')} | {j.get('run_impl')} | {j.get('round')} | {shown} | {j.get('seconds')} |")
    out.append("")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", required=True)
    parser.add_argument("--machine")
    parser.add_argument("--prefix", required=True, help="output path prefix, e.g. OUT/bench-2026-11-29")
    args = parser.parse_args()

    records = read_results(args.results)
    machine = read_machine(args.machine)
    cases = micro_cases(records)
    checks = [r for r in records if r["kind"] == "check"]
    skips = [r for r in records if r["kind"] == "skip"]
    jobs = [r for r in records if r["kind"] == "job"]
    na = [r for r in records if r["kind"] == "na"]
    timing, jacobi_checks = jacobi_runs(records)
    os.makedirs(os.path.dirname(os.path.abspath(args.prefix)), exist_ok=True)
    try:
        images = plots(args.prefix, cases, timing)
    except Exception as error:  # noqa: BLE001 — a broken plot must not cost the report
        print(f"report: plotting failed ({error!r}); the Markdown is written without plots", file=sys.stderr)
        images = []

    failed_jobs = [j for j in jobs if j.get("status") not in ("0", "budget", "skipped")]
    hung_jobs = [j for j in jobs if j.get("status") == "skipped"]
    budget_jobs = [j for j in jobs if j.get("status") == "budget"]
    lines = ["# nvshmem-rs benchmarks: Rust kernels vs CUDA C++ kernels on NVSHMEM", ""]
    lines += [f"- date: {machine.get('date', '–')}",
              f"- machine: {machine.get('gpu', '–')}, driver {machine.get('driver', '–')}, "
              f"{machine.get('gpus', '?')} GPU(s), {machine.get('cpus', '?')} CPUs",
              f"- NVSHMEM: {machine.get('nvshmem', '–')}",
              f"- nvcc: {machine.get('nvcc', '–')}",
              f"- commit: {machine.get('commit', '–')}",
              f"- PEs: {machine.get('pes', '–')}",
              f"- runs: {len(jobs)}: {len(failed_jobs)} did not exit 0, {len(budget_jobs)} skipped (time budget), "
              f"{len(hung_jobs)} skipped (timed out before)",
              ""]
    lines += METHOD.splitlines() + [""]
    lines += micro_markdown(cases, checks, skips)
    lines += jacobi_markdown(timing, jacobi_checks, na)
    for image in images:
        name = os.path.basename(image)
        lines += [f"![{name}]({name})", ""]
    lines += micro_appendix(cases) if cases else []
    lines += jobs_markdown(jobs)
    with open(f"{args.prefix}.md", "w", encoding="utf-8") as f:
        f.write("\n".join(lines))

    # The short summary the harness prints last.
    print(f"report: {args.prefix}.md" + "".join(f", {os.path.basename(i)}" for i in images))
    for s in family_summary(cases):
        print(f"  {s['bench']:16s} {s['compared']:3d} compared, Rust÷CUDA geo-mean {fmt_ratio(s['geomean']):>6s} "
              f"(target {s['target']}), worst {fmt_ratio(s['worst']):>6s}, noise band {pct(s['band']):>7s}: "
              f"{s['ok']} ✓ {s['near']} ≈ {s['bad']} ✗ → {s['verdict']}")
    for key in sorted(timing, key=jacobi_order):
        per = timing[key]
        fig = {i: median(number(r.get("seconds_per_iter")) for r in per.get(i, {}).values()) for i in ("rust", "cuda")}
        ratio = fig["rust"] / fig["cuda"] if fig["rust"] and fig["cuda"] else None
        print(f"  jacobi {key[0]:11s} {key[1]} PE: Rust {fmt(fig['rust'] and fig['rust'] * 1e3, 4)} ms, "
              f"CUDA {fmt(fig['cuda'] and fig['cuda'] * 1e3, 4)} ms, Rust÷CUDA {fmt_ratio(ratio)} {verdict(ratio, False) if ratio else ''}")
    for key in sorted(jacobi_checks, key=jacobi_order):
        per = jacobi_checks[key]
        print(f"  jacobi check {key[0]:11s}: " + ", ".join(
            f"{i} {r.get('check')}" for i in ("rust", "cuda") for r in per.get(i, {}).values()))
    if budget_jobs:
        print(f"  {len(budget_jobs)} run(s) skipped: the harness's time budget was spent (BENCH_BUDGET_S)")
    if hung_jobs:
        print(f"  {len(hung_jobs)} run(s) skipped: the same program had run out of time before")
    if failed_jobs:
        print(f"  {len(failed_jobs)} run(s) did not exit 0: "
              + ", ".join(f"{j.get('name')}[{j.get('run_impl')} r{j.get('round')}]={j.get('status')}" for j in failed_jobs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
