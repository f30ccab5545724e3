#!/usr/bin/env python3
"""The report of bench/run-bench.sh: Rust kernels against the same kernels in CUDA C++.

    python3 bench/report.py --results RESULTS.txt --machine MACHINE.txt --prefix OUT/bench-STAMP

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

Exit status: 1 when a run did not exit 0, a data check or Jacobi check failed, or a case or Jacobi
row has no figure (the report shows each as FAILED); 0 otherwise, whatever the ratios are.
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
IMPLS = ("rust", "cuda")


def method(machine, rounds):
    pes = machine.get("pes", "–")
    micro_args = machine.get("micro_args") or "the programs' defaults"
    collective_args = machine.get("collective_args") or "none"
    jacobi_args = machine.get("jacobi_args", "–")
    jacobi_rounds = machine.get("jacobi_rounds", str(rounds))
    return f"""\
## Method

- **Pairs.** Every benchmark exists twice: a Rust kernel (`bench/micro/kernels`, `examples/jacobi/kernels`)
  launched by a Rust runner, and a CUDA C++ kernel (`bench/reference/*.cu`, built here with
  `nvcc -O3 -rdc=true -arch=sm_90` against the same NVSHMEM) launched by a C++ runner that mirrors
  the Rust one: the same NVSHMEM calls, launch shapes, allocations, order of cases, timing and output.
  Both start under the same launcher (`nvshmemrun`) with the same environment, and both allocate
  the same symmetric buffers in the same order (the Rust host library allocates nothing of its own
  while its allocation check is off, as in release builds), so their buffers lie at the same offsets of the symmetric heap.
- **PE counts.** The whole comparison runs at each PE count of `BENCH_PES` (here: {pes}), started
  with `nvshmemrun -n PEs --pes-per-gpu K`, K = ⌈PEs ÷ GPUs⌉; PEs that share a GPU run under MPS
  (started by the harness for those runs only). At 1 PE the one-sided benchmarks move data from PE 0
  to PE 0 itself (NVSHMEM's local path), `barrier_lat` times a barrier of one PE, and the
  ping-pongs, which need two PEs, are not run (listed as skipped). Each PE count has its own section
  below; the summary puts them side by side.
- **Order, alternation and rounds.** Short runs first: for each PE count its micro-benchmarks and
  Jacobi checks; then the long Jacobi timings round by round (round 1 of every PE count and variant,
  then round 2, …), so that a spent time budget costs the last rounds, not whole PE counts. Each pair
  runs alternately, Rust first in odd rounds and CUDA first in even rounds, so that drift of the
  machine and the place in the sequence hit both programs alike. Micro-benchmarks run {rounds}
  round(s), Jacobi timings {jacobi_rounds}; a figure below is the **median over the rounds** of that
  program (of two rounds: their mean).
- **Idle PEs wait on the host.** While PE 0 measures (and PE 1, in the ping-pongs), the other PEs
  wait for the end of the case on the host: PE 0 writes the case's number into their memory with a
  small kernel once its timed launches are done, and they poll it with a copy every millisecond;
  then all meet in `nvshmem_barrier_all`. Waiting in that barrier instead would leave its kernel
  spinning on the GPU during the measurement, and with several PEs on one GPU (MPS) it shares the
  multiprocessors with the measured kernel (it cost a one-block thread-scope put of 4 KiB 20 % at 2
  PEs).
- **One-sided micro-benchmarks** (`put_bw`, `get_bw`, `p_lat`, `put_lat`; PE 0 issues to PE 1;
  arguments: `{micro_args}`): per case, untimed warm-up launches, then `--reps` timed
  launches, each between two CUDA events recorded on the stream right behind a 50 µs spinning
  kernel (so the start event is not taken on an idle GPU while the host is still launching). Median
  over the timed launches. A bandwidth launch repeats the transfer enough times to move ≈256 MiB (2
  to 1000 times); bandwidth = bytes × repeats ÷ time, in GB/s (10⁹ B/s), the bytes counted once.
  Every repeat reads the same source: a get's repeats after the first may be served from the
  getting GPU's L1 (plain loads, as NVSHMEM's own header path uses, for both programs), so get
  figures above the link's rate (1 MiB over all multiprocessors) measure that cache and the
  writes into L2, not the link. Both runners allocate their two buffers at the largest size; the
  launches of a case move their transfer to evenly spread places of the buffers (launch k of the
  warm-up and timed ones starts k × slots ÷ launches slots in, a slot being the size rounded up to
  256 B; source and destination together; one place for the largest size), so that the median is
  taken over many physical pages: where the driver put the pages alone moved the same binary's
  1 MiB-over-all-multiprocessors figures by up to 17 % from one process to the next. And round r
  leaves (r − 1) MiB between the two buffers (`--gap`, the same in both programs), so the
  rounds span as many layouts and the noise band shows what the layout still does.
  After every bandwidth case, outside its timing, the PE that received the data compares its whole
  buffer with what the case should have left there: the sender's pattern of that case (each case
  fills the source with its own) wherever a launch of the case wrote, and the poison written before
  the case everywhere else; one `check:` line per case.
  Latency launches do `--lat-iters` operations (put latency: no more than 1 MiB of puts, at least
  10) each followed by `quiet`; latency = time ÷ operations.
- **Two-sided micro-benchmarks** (`barrier_lat`, `pingpong_p`, `pingpong_signal`; every PE launches
  cooperatively): 20 untimed barriers or round trips line the PEs up inside the kernel, then the GPU's
  `%globaltimer` times the next `--lat-iters`; median over the launches, each waited for before
  the next is queued (a launch queued behind a running one made the signal ping-pong up to 70 %
  slower in some processes at 3 and 4 PEs under MPS, in both programs, every launch but the last).
  Ping-pong latency is half a
  round trip; the ping-pong runs between PEs 0 and 1 (the kernels of further PEs return at once),
  round trip i on the words of place i mod 16 of 16 places 2 MiB + 128 B apart (in both programs),
  so that every launch is timed over 16 places of memory and not one: with one place the rounds of a
  ping-pong spread by up to 56 % on one GPU, and over NVLink the same binary's round trip moved by
  up to 6 % with the place; the barriers take in every PE.
- **Collectives** (`reduce_lat`, `alltoall_lat`; every PE, over `NVSHMEM_TEAM_WORLD`, at each scope
  and size of `--lat-sizes`; arguments after the above: `{collective_args}`), timed like the
  barriers: a sum reduction of bytes ÷ 8
  `u64`, or an alltoall in which every PE sends the bytes to each PE (bytes ÷ 8 `u64`; bytes × PEs
  in all, as NVSHMEM's perftests count it). They run as their own job, with NVSHMEM's NCCL use off
  and, where PEs share a GPU, `CUDA_MPS_ACTIVE_THREAD_PERCENTAGE` = 100 ÷ PEs per GPU: without it
  NVSHMEM runs in its limited multi-PE-per-GPU mode, which has no collectives.
- **Jacobi** (`{jacobi_args}`). Each program times its iteration loop with CUDA events after
  initialisation and reports seconds per iteration; `gbps` counts each updated cell read and written
  once; `copy_gbps` is the GPU's best device-to-device copy rate (read + write); `floor_fraction` =
  gbps ÷ copy rate. Rust and CUDA run each variant with the same grid, iterations and norm frequency.
  T1 is the CUDA single-GPU code on one PE, run once. Checks run once per PE count on a small grid
  with `--check` (CUDA: against the single-GPU code on the same GPU).
- **Ratios and targets.** Bandwidth: Rust ÷ CUDA ≥ 1.00; latency and time: Rust ÷ CUDA ≤ 1.00, each
  the ratio of the two medians. ✓ meets the target by at least the noise band (below); ✗ misses it
  by more than 3 % and by more than the band; ≈ lies between: it misses the target by less than
  3 %, or lies inside the band, where meeting and missing are not told apart. Only ✓ is at target.
  A case **fails** (FAILED) when a run that gave one of its figures did not exit 0, when a data
  check of it failed, or when a program has no figure for it (no line, or a value that is not a
  number). At a PE count a family is PASS when every case is ✓, FAIL when one is ✗ or failed,
  and NEAR otherwise; the summary counts every case. The harness exits non-zero when a run or a
  check failed or a case has no figure.
- **Noise band.** For each case and program, the spread of its rounds (for the micro-benchmarks,
  rounds at different buffer distances): the largest |round ÷ median of the rounds − 1|. The band
  of a family at a PE count is the 90th percentile of these spreads over its cases and both
  programs (for Jacobi: over the variants and both programs).
  It says how far one run strays from the figure reported. A Rust ÷ CUDA ratio divides two such
  figures, each uncertain by about the band, so a distance from 1.00 smaller than the band is not
  told from noise; a band above 3 % marks the family **not conclusive** at ±3 %. With one round
  there is no band (a ratio then meets the target or not by itself); with two it is half of
  |round 2 ÷ round 1 − 1|.
"""


def fields(text):
    """`k=v k2=v two words k3=v` → dict; a value runs up to the next ` key=`."""
    marks = list(KEY.finditer(text))
    out = {}
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        out[mark.group(1)] = text[mark.end():end].strip()
    return out


def whole(text, default=None):
    try:
        return int(text)
    except (TypeError, ValueError):
        return default


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
    # The PE count of every record: its own, else the harness's run_pes=, else that of the results of
    # the same run (job, program, round): older harnesses tagged neither checks, skips nor jobs.
    run_pes = {}
    for r in records:
        if r["kind"] == "result" and whole(r.get("pes")) is not None:
            run_pes.setdefault((r.get("job"), r.get("run_impl"), r.get("round")), whole(r.get("pes")))
    for r in records:
        pes = whole(r.get("pes"), whole(r.get("run_pes")))
        if pes is None:
            job = r.get("name") if r["kind"] == "job" else r.get("job")
            pes = run_pes.get((job, r.get("run_impl"), r.get("round")))
        r["pes_n"] = pes
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


def spread(by_round):
    """The largest |round ÷ median of the rounds − 1| of one program; None below two rounds."""
    values = [v for v in by_round.values() if v]
    if len(values) < 2:
        return None
    centre = statistics.median(values)
    return max(abs(v / centre - 1.0) for v in values)


def verdict(ratio, higher_is_better, band=None):
    """✓ meets the target by at least the noise band; ✗ misses it by more than 3 % and by more than
    the band; ≈ anything between (misses by less than 3 %, or lies inside the noise band): only ✓
    is at target. No ratio: "–" (the caller counts the case as failed)."""
    if ratio is None:
        return "–"
    margin = ratio - 1.0 if higher_is_better else 1.0 - ratio  # > 0: better than the target
    band = band or 0.0
    if margin >= band:
        return "✓"
    if margin < -TOLERANCE and -margin > band:
        return "✗"
    return "≈"


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


def pes_label(pes):
    return "? PEs" if pes is None else f"{pes} PE" + ("" if pes == 1 else "s")


def pes_sort(values):
    return sorted({v for v in values}, key=lambda p: (p is None, p or 0))


# ------------------------------------------------------------------------------------------------
# Micro-benchmarks

BENCH_ORDER = ["put_bw", "get_bw", "p_lat", "put_lat", "barrier_lat", "pingpong_p", "pingpong_signal",
               "reduce_lat", "alltoall_lat"]
SCOPE_ORDER = {"block": 0, "warp": 1, "thread": 2}


def bench_order(bench):
    return BENCH_ORDER.index(bench) if bench in BENCH_ORDER else len(BENCH_ORDER)


class Case:
    """One micro-benchmark case at one PE count: its values per program and round."""

    def __init__(self, key, unit):
        self.key = key  # (bench, scope, bytes, grid, pes)
        self.unit = unit
        self.values = {"rust": {}, "cuda": {}}  # impl → round → value (None: not a finite number)
        self.runs = set()  # (job, impl, round) of every result line of the case
        self.band = None  # the noise band of its family at its PE count
        self.problems = []  # why the case failed, in words; empty: it did not

    @property
    def failed(self):
        return bool(self.problems)

    def verdict(self):
        """The case's mark: FAILED, or the ratio against the target outside the noise band."""
        return "FAILED" if self.failed else verdict(self.ratio(), self.higher_is_better, self.band)

    @property
    def pes(self):
        return self.key[4]

    @property
    def higher_is_better(self):
        return self.unit == "GB/s"

    def figure(self, impl):
        return median(self.values[impl].values())

    def ratio(self):
        rust, cuda = self.figure("rust"), self.figure("cuda")
        return rust / cuda if rust and cuda else None

    def spread(self, impl):
        return spread(self.values[impl])

    def noise(self):
        """The spreads of the programs that ran at least twice."""
        return [s for s in (self.spread(i) for i in IMPLS) if s is not None]


def micro_cases(records):
    cases = {}
    for r in records:
        if r["kind"] != "result" or "bench" not in r:
            continue
        impl = r["impl"] if r["impl"] in IMPLS else r.get("run_impl")
        if impl not in IMPLS:
            continue
        key = (r["bench"], r.get("scope", "-"), whole(r.get("bytes"), 0), whole(r.get("grid"), 1), r["pes_n"])
        case = cases.setdefault(key, Case(key, r.get("unit", "")))
        round_ = whole(r.get("round"), 1)
        case.values[impl][round_] = number(r.get("value"))
        case.runs.add((r.get("job"), impl, round_))
        if case.values[impl][round_] is None:
            case.problems.append(f"{impl} r{round_}: value {r.get('value')}")
    return cases


def failed_runs(jobs):
    """{(job, impl, round, pes): status} of the runs that did not exit 0 (a run the harness skipped
    for its time budget, or for an earlier timeout, is not one: the latter failed before)."""
    return {(j.get("name"), j.get("run_impl"), whole(j.get("round"), 1), j["pes_n"]): j.get("status")
            for j in jobs if j.get("status") not in ("0", "budget", "skipped")}


def check_failed(check):
    return check.get("status") != "pass"


def mark_failures(cases, checks, failed):
    """Sets every case's noise band and its problems: a run of it that did not exit 0, a data check
    of it that failed, a program without a figure for it."""
    families = defaultdict(list)
    for case in cases.values():
        families[(case.key[0], case.pes)].append(case)
    for group in families.values():
        band = percentile([n for c in group for n in c.noise()], 0.9)
        for case in group:
            case.band = band
    for case in cases.values():
        bench, scope, size, grid, pes = case.key
        for job, impl, round_ in sorted(case.runs, key=str):
            status = failed.get((job, impl, round_, pes))
            if status is not None:
                case.problems.append(f"{impl} r{round_}: run {job} exited {status}")
        for c in checks:
            # A check names its case; those of older runners name only the benchmark and the
            # largest size of the sweep, and speak for every case of it.
            if (c.get("bench") != bench or c["pes_n"] != pes or not check_failed(c)
                    or ("scope" in c and (c["scope"] != scope or whole(c.get("bytes")) != size
                                          or whole(c.get("grid")) != grid))):
                continue
            case.problems.append(f"{c['impl']} r{c.get('round', '?')}: data check {c.get('status')}, "
                                 f"{c.get('mismatches', '?')} mismatches")
        for impl in IMPLS:
            if case.figure(impl) is None:
                case.problems.append(f"no {impl} figure")


def sort_key(case):
    bench, scope, size, grid, pes = case.key
    return (pes or 0, bench_order(bench), SCOPE_ORDER.get(scope, 9), size, grid)


def family_summary(cases):
    """One row per benchmark family of `cases` (which are of one PE count), counting every case."""
    rows = []
    families = defaultdict(list)
    for case in cases:
        families[case.key[0]].append(case)
    for bench in sorted(families, key=bench_order):
        group = families[bench]
        ratios = [c.ratio() for c in group if c.ratio() is not None]
        band = group[0].band
        verdicts = [c.verdict() for c in group]
        higher = group[0].higher_is_better
        counts = {mark: verdicts.count(mark) for mark in ("✓", "≈", "✗", "FAILED")}
        if counts["✗"] or counts["FAILED"]:
            overall = "FAIL"
        elif counts["≈"]:
            overall = "NEAR"
        else:
            overall = "PASS"
        shown = overall
        if band is None:
            shown += " (one round: no noise band)"
        elif band > TOLERANCE:
            shown += " (noise band > 3 %: not conclusive)"
        rows.append({
            "bench": bench, "unit": group[0].unit, "target": "≥ 1.00" if higher else "≤ 1.00",
            "cases": len(group), "compared": len(ratios), "geomean": geomean(ratios),
            "worst": (min(ratios) if higher else max(ratios)) if ratios else None,
            "best": (max(ratios) if higher else min(ratios)) if ratios else None,
            "band": band, "ok": counts["✓"], "near": counts["≈"], "bad": counts["✗"], "failed": counts["FAILED"],
            "verdict": shown, "outcome": overall, "pass": overall == "PASS",
            "conclusive": band is not None and band <= TOLERANCE,
        })
    return rows


def families_without_cases(cases, skips, pes_list):
    """(bench, pes) of the families that have cases at some PE count but none at `pes`, where the
    harness did not skip them (as it skips the ping-pongs at one PE)."""
    benches = {c.key[0] for c in cases.values()}
    return [(bench, p) for bench in sorted(benches, key=bench_order) for p in pes_list
            if not any(c.key[0] == bench and c.pes == p for c in cases.values())
            and not any(k.get("bench") == bench and k["pes_n"] == p for k in skips)]


def micro_section(cases, checks, skips, images):
    """The micro-benchmark part of one PE count's section."""
    out = []
    if not cases:
        out += ["No micro-benchmark results at this PE count.", ""]
    else:
        out += ["### Micro-benchmarks: summary", "",
                "| benchmark | unit | target (Rust ÷ CUDA) | cases | compared | geo-mean ratio | worst | best | "
                "noise band | ✓ | ≈ | ✗ | failed | verdict |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for s in family_summary(cases):
            out.append(f"| {s['bench']} | {s['unit']} | {s['target']} | {s['cases']} | {s['compared']} | "
                       f"{fmt_ratio(s['geomean'])} | {fmt_ratio(s['worst'])} | {fmt_ratio(s['best'])} | "
                       f"{pct(s['band'])} | {s['ok']} | {s['near']} | {s['bad']} | {s['failed']} | {s['verdict']} |")
        out.append("")
    failed = sorted((c for c in cases if c.failed), key=sort_key)
    if failed:
        out += ["#### Failed cases", "", "| benchmark | scope | bytes | grid | why |", "|---|---|---|---|---|"]
        for c in failed:
            out.append(f"| {c.key[0]} | {c.key[1]} | {human_bytes(c.key[2])} | {c.key[3]} | "
                       f"{'; '.join(c.problems).replace('|', '/')} |")
        out.append("")
    if checks:
        out += ["Data checks after each bandwidth case (the receiving PE compares the bytes the case wrote "
                "with the sender's pattern of that case, and the rest of its buffer with the poison it "
                "held before), over the cases and rounds:", "",
                "| benchmark | program | checks | failed | mismatches |", "|---|---|---|---|---|"]
        grouped = defaultdict(list)
        for c in checks:
            grouped[(c.get("bench"), c["impl"])].append(c)
        for (bench, impl), group in sorted(grouped.items(), key=lambda kv: (bench_order(kv[0][0]), kv[0][1])):
            bad = [c for c in group if check_failed(c)]
            mismatches = sum(whole(c.get("mismatches"), 0) for c in group)
            out.append(f"| {bench} | {impl} | {len(group)} | {len(bad)} | {mismatches} |")
        out.append("")

    # bandwidth as ratio matrices: one per (bench, scope), sizes down, grids across
    for bench in ("put_bw", "get_bw"):
        group = [c for c in cases if c.key[0] == bench]
        if not group:
            continue
        grids = sorted({c.key[3] for c in group})
        out += [f"#### {bench}: Rust ÷ CUDA bandwidth (target ≥ 1.00)", ""]
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
                    cells.append(f"{c.verdict()} {fmt_ratio(c.ratio())} ({fmt(c.figure('rust'))} / "
                                 f"{fmt(c.figure('cuda'))})")
                out.append(f"| {human_bytes(size)} | " + " | ".join(cells) + " |")
            out.append("")

    lat = sorted((c for c in cases if not c.higher_is_better), key=sort_key)
    if lat:
        out += ["#### Latencies: Rust ÷ CUDA (target ≤ 1.00)", "",
                "| benchmark | scope | bytes | Rust µs | CUDA µs | Rust ÷ CUDA | Rust spread | CUDA spread | |",
                "|---|---|---|---|---|---|---|---|---|"]
        for c in lat:
            r = c.ratio()
            out.append(f"| {c.key[0]} | {c.key[1]} | {human_bytes(c.key[2])} | {fmt(c.figure('rust'), 4)} | "
                       f"{fmt(c.figure('cuda'), 4)} | {fmt_ratio(r)} | {pct(c.spread('rust'))} | "
                       f"{pct(c.spread('cuda'))} | {c.verdict()} |")
        out.append("")
    if skips:
        out += ["#### Cases that did not run", "", "| job | program | round | case | reason |", "|---|---|---|---|---|"]
        for s in skips:
            case = " ".join(f"{k}={s[k]}" for k in ("bench", "scope", "bytes", "grid", "program") if k in s)
            out.append(f"| {s.get('job', '–')} | {s['impl']} | {s.get('round', '–')} | {case} | "
                       f"{s.get('reason', '').replace('|', '/')} |")
        out.append("")
    for image in images:
        name = os.path.basename(image)
        out += [f"![{name}]({name})", ""]
    return out


def micro_appendix(cases, rounds):
    columns = [f"{impl} r{k}" for impl in ("Rust", "CUDA") for k in range(1, rounds + 1)]
    out = ["## Appendix: every micro-benchmark figure, every round", "",
           "| PEs | benchmark | scope | bytes | grid | unit | " + " | ".join(columns) +
           " | Rust ÷ CUDA | Rust spread | CUDA spread | |",
           "|---|---|---|---|---|---|" + "---|" * len(columns) + "---|---|---|---|"]
    for c in sorted(cases.values(), key=sort_key):
        r = c.ratio()
        values = [fmt(c.values[impl].get(k), 5) for impl in IMPLS for k in range(1, rounds + 1)]
        out.append(f"| {c.key[4]} | {c.key[0]} | {c.key[1]} | {c.key[2]} | {c.key[3]} | {c.unit} | "
                   + " | ".join(values) +
                   f" | {fmt_ratio(r)} | {pct(c.spread('rust'))} | {pct(c.spread('cuda'))} | "
                   f"{c.verdict()} |")
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
        target[(r["variant"], r["pes_n"])][impl][whole(r.get("round"), 1)] = r
    return timing, checks


def add_runs_without_figures(timing, checks, jobs):
    """Rows for the variants a program was to run at a PE count but left no figure for."""
    for j in jobs:
        name = j.get("name", "")
        if not name.startswith("jacobi-"):
            continue
        variant = name[len("jacobi-"):]
        if variant.startswith("check-") or variant.endswith("-check"):
            variant = variant.removeprefix("check-").removesuffix("-check")
            checks[(variant, j["pes_n"])]  # noqa: B018 — the defaultdict makes the row
        else:
            timing[(variant, j["pes_n"])]  # noqa: B018


def jacobi_order(key):
    variant, pes = key
    return (pes or 0, JACOBI_ORDER.index(variant) if variant in JACOBI_ORDER else 99)


def only_cuda(variant):
    """The variants that exist in CUDA C++ alone: T1 and the NCCL Jacobi."""
    return variant in ("single", "nccl")


def check_job(variant):
    return f"jacobi-{variant}-check" if variant == "nccl" else f"jacobi-check-{variant}"


def run_problems(failed, job, pes):
    return [f"{impl} r{round_}: run {job} exited {status}"
            for (name, impl, round_, p), status in sorted(failed.items(), key=str) if name == job and p == pes]


class JacobiRow:
    """One variant at one PE count: medians over the rounds, for each program; with `key` and the
    failed runs, also why it failed (a run that did not exit 0, a time that is not a number, a
    program without a figure) and its verdict against the noise band `band`."""

    def __init__(self, per, key=None, failed=None, band=None):
        self.band = band
        self.problems = []
        if key is not None:
            variant, pes = key
            self.problems += run_problems(failed or {}, f"jacobi-{variant}", pes)
            for impl in ("cuda",) if only_cuda(variant) else IMPLS:
                for round_, r in sorted(per.get(impl, {}).items()):
                    if number(r.get("seconds_per_iter")) is None:
                        self.problems.append(f"{impl} r{round_}: seconds_per_iter {r.get('seconds_per_iter')}")
        self.figures = {}
        for impl in IMPLS:
            rounds = per.get(impl, {})
            secs = {k: number(r.get("seconds_per_iter")) for k, r in rounds.items()}
            self.figures[impl] = {
                "s": median(secs.values()),
                "spread": spread({k: v for k, v in secs.items() if v}),
                "rounds": len([v for v in secs.values() if v]),
                "gbps": median(number(r.get("gbps")) for r in rounds.values()),
                "floor": median(number(r.get("floor_fraction")) for r in rounds.values()),
                "norm": next((r.get("norm") for r in rounds.values()), None),
                "occupancy": next((f"{r['registers']}, {r['blocks_per_sm']}" for r in rounds.values()
                                   if r.get("registers") and r.get("blocks_per_sm")), "–"),
            }
        rs, cs = self.seconds("rust"), self.seconds("cuda")
        self.ratio = rs / cs if rs and cs else None
        if key is not None:
            for impl in ("cuda",) if only_cuda(key[0]) else IMPLS:
                if self.seconds(impl) is None:
                    self.problems.append(f"no {impl} figure")

    def seconds(self, impl):
        return self.figures[impl]["s"]

    @property
    def failed(self):
        return bool(self.problems)

    def verdict(self):
        """FAILED, the ratio's mark against the target (time: ≤ 1.00), or "" for CUDA alone."""
        if self.failed:
            return "FAILED"
        return verdict(self.ratio, False, self.band) if self.ratio is not None else ""


def jacobi_rows(timing, failed):
    """Every timing row, each with the noise band of the Jacobi timings at its PE count: the 90th
    percentile of the spreads of every variant and both programs there."""
    rows = {key: JacobiRow(per) for key, per in timing.items()}
    bands = {}
    for pes in {p for _, p in timing}:
        bands[pes] = percentile([row.figures[i]["spread"] for (v, p), row in rows.items() if p == pes
                                 for i in IMPLS if row.figures[i]["spread"] is not None], 0.9)
    return {key: JacobiRow(per, key, failed, bands[key[1]]) for key, per in timing.items()}


def jacobi_check_problems(key, per, failed):
    """Why a Jacobi check row failed: a run that did not exit 0, a check that did not pass, a
    program that left no check."""
    variant, pes = key
    problems = run_problems(failed, check_job(variant), pes)
    for impl in ("cuda",) if only_cuda(variant) else IMPLS:
        rounds = per.get(impl, {})
        if not rounds:
            problems.append(f"no {impl} check")
        problems += [f"{impl} r{k}: check={r.get('check')}" for k, r in sorted(rounds.items())
                     if r.get("check") != "pass"]
    return problems


STATUS_WORDS = {"budget": "not run (time budget)", "skipped": "not run (timed out before)",
                "missing": "not built", "124": "timed out", "137": "timed out"}


def why_missing(jobs, name, impl, pes):
    """Why runs of job `name` by `impl` at `pes` PEs left no figure: their statuses, in words."""
    statuses = []
    for j in jobs:
        if j.get("name") == name and j.get("run_impl") == impl and j["pes_n"] == pes:
            status = j.get("status")
            word = STATUS_WORDS.get(status, f"exit {status}")
            if word not in statuses:
                statuses.append(word)
    return ", ".join(statuses) or "not run"


def t1_of(timing):
    single = timing.get(("single", 1), {}).get("cuda")
    return median(number(r.get("seconds_per_iter")) for r in single.values()) if single else None


def jacobi_section(pes, timing, rows, checks, na, t1, jobs, failed):
    """The Jacobi part of one PE count's section."""
    out = ["### Jacobi", ""]
    keys = sorted((k for k in timing if k[1] == pes), key=jacobi_order)
    check_keys = sorted((k for k in checks if k[1] == pes), key=jacobi_order)
    if not keys and not check_keys:
        out += ["No Jacobi results at this PE count.", ""]
    any_run = next((rec for k in keys for rounds in timing[k].values() for rec in rounds.values()), None)
    if any_run:
        out += [f"Grid {any_run.get('nx')} × {any_run.get('ny')}, {any_run.get('iters')} iterations, "
                f"norm every {any_run.get('norm_every')} (both programs); device copy rate "
                f"{fmt(number(any_run.get('copy_gbps')))} GB/s.", ""]
    if keys:
        out += ["| variant | Rust ms/iter | CUDA ms/iter | Rust ÷ CUDA time | Rust GB/s | CUDA GB/s | "
                "floor fraction R / C | T1 ÷ Tp (R / C) | norm R / C | registers, blocks per SM R / C | "
                "rounds R / C | Rust spread | CUDA spread | |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        missing, failures = [], []
        for key in keys:
            row = rows[key]
            for impl in IMPLS:
                if row.seconds(impl) is None and not (impl == "rust" and only_cuda(key[0])):
                    missing.append(f"{key[0]}, {impl}: {why_missing(jobs, 'jacobi-' + key[0], impl, pes)}")
            if row.failed:
                failures.append(f"{key[0]}: " + "; ".join(row.problems))
            fig = row.figures
            speed = [fmt(t1 / fig[i]["s"], 3) if t1 and fig[i]["s"] else "–" for i in IMPLS]
            rs, cs = row.seconds("rust"), row.seconds("cuda")
            out.append(
                f"| {key[0]} | {fmt(rs and rs * 1e3, 4)} | {fmt(cs and cs * 1e3, 4)} | {fmt_ratio(row.ratio)} | "
                f"{fmt(fig['rust']['gbps'])} | {fmt(fig['cuda']['gbps'])} | "
                f"{fmt(fig['rust']['floor'], 3)} / {fmt(fig['cuda']['floor'], 3)} | {speed[0]} / {speed[1]} | "
                f"{fig['rust']['norm'] or '–'} / {fig['cuda']['norm'] or '–'} | "
                f"{fig['rust']['occupancy']} / {fig['cuda']['occupancy']} | "
                f"{fig['rust']['rounds']} / {fig['cuda']['rounds']} | {pct(fig['rust']['spread'])} | "
                f"{pct(fig['cuda']['spread'])} | {row.verdict()} |")
        out += ["", "Registers, blocks per SM: the stencil kernel's registers per thread and its resident blocks "
                "of the run's size per multiprocessor, as the driver loaded it (the persistent variant's "
                "cooperative grid is those blocks times the multiprocessors, shared among the GPU's PEs).", ""]
        if missing:
            out += ["No figure: " + "; ".join(missing) + ".", ""]
        if failures:
            out += ["Failed: " + " · ".join(failures) + ".", ""]
        band = rows[keys[0]].band
        out += [f"Noise band of the Jacobi timings at {pes_label(pes)} (90th percentile of the spreads): {pct(band)}."
                + (" Above 3 %: not conclusive." if band is not None and band > TOLERANCE else "")
                + (" (One round: no band.)" if band is None else ""), ""]
        if t1:
            out += [f"T1 (CUDA single-GPU code, one PE): {fmt(t1 * 1e3, 4)} ms per iteration. T1 ÷ Tp compares "
                    "each variant with it (the ideal is the number of GPUs the PEs run on: 1.0 when they share "
                    "one).", ""]
    for n in na:
        out += [f"- {n.get('variant', n.get('bench'))}: n/a ({n.get('reason')})"]
    if na:
        out.append("")
    if check_keys:
        out += ["Checks (`--check`, small grid):", "", "| variant | Rust | CUDA | |", "|---|---|---|---|"]
        for key in check_keys:
            per = checks[key]
            name = check_job(key[0])
            cell = {i: ", ".join(r.get("check", "?") for r in per.get(i, {}).values()) for i in IMPLS}
            for i in IMPLS:
                if not cell[i]:
                    cell[i] = "–" if (i == "rust" and only_cuda(key[0])) else why_missing(jobs, name, i, pes)
            problems = jacobi_check_problems(key, per, failed)
            mark = "FAILED: " + "; ".join(problems) if problems else "✓"
            out.append(f"| {key[0]} | {cell['rust']} | {cell['cuda']} | {mark} |")
        out.append("")
    return out


# ------------------------------------------------------------------------------------------------
# The summary: every PE count side by side

def summary_markdown(cases, rows, skips, pes_list, jacobi_checks, failed):
    out = ["## Summary", ""]
    if not pes_list:
        return out + ["No results.", ""]
    header = "| | " + " | ".join(pes_label(p) for p in pes_list) + " |"
    rule = "|---|" + "---|" * len(pes_list)
    micro = defaultdict(int)  # family × PE count cells by outcome
    if cases:
        out += ["Micro-benchmarks, per family and PE count: verdict (✓ · ≈ · ✗ · failed, of every case), "
                "worst Rust ÷ CUDA ratio, noise band. PASS: every case ✓; NEAR: none ✗ or failed, some ≈; "
                "FAIL: some ✗ or failed. ⚠: noise band above 3 %, the verdict is not conclusive.",
                "", header.replace("| |", "| benchmark (target) |", 1), rule]
        summaries = {p: {s["bench"]: s for s in family_summary([c for c in cases.values() if c.pes == p])}
                     for p in pes_list}
        benches = sorted({b for rows_ in summaries.values() for b in rows_}, key=bench_order)
        for bench in benches:
            cells, target = [], ""
            for p in pes_list:
                s = summaries[p].get(bench)
                if s is None:
                    skipped = next((k for k in skips if k.get("bench") == bench and k["pes_n"] == p), None)
                    if skipped:
                        cells.append(f"not run ({skipped.get('reason')})")
                    else:
                        micro["FAIL"] += 1
                        cells.append("FAIL: no case")
                    continue
                target = s["target"]
                micro[s["outcome"]] += 1
                warn = " ⚠" if s["band"] is not None and s["band"] > TOLERANCE else ""
                band = "one round, no band" if s["band"] is None else f"±{pct(s['band'])}"
                cells.append(f"{s['outcome']} ({s['ok']} · {s['near']} · {s['bad']} · {s['failed']} of "
                             f"{s['cases']}) · worst {fmt_ratio(s['worst'])} · {band}{warn}")
            out.append(f"| {bench} ({target}) | " + " | ".join(cells) + " |")
        out.append("")
    jacobi = defaultdict(int)  # variant × PE count cells by mark
    variants = sorted({v for v, _ in rows if v != "single"},
                      key=lambda v: JACOBI_ORDER.index(v) if v in JACOBI_ORDER else 99)
    if variants:
        out += ["Jacobi, per variant and PE count: Rust ÷ CUDA time per iteration (target ≤ 1.00; ✓ at "
                "target outside the noise band), with Rust / CUDA ms per iteration (medians over the rounds).",
                "", header.replace("| |", "| variant |", 1), rule]
        for variant in variants:
            cells = []
            for p in pes_list:
                row = rows.get((variant, p))
                if row is None:
                    cells.append("–")
                    continue
                rs, cs = row.seconds("rust"), row.seconds("cuda")
                if row.failed:
                    jacobi["FAILED"] += 1
                    cells.append("FAILED: " + "; ".join(row.problems))
                elif only_cuda(variant):
                    cells.append(f"CUDA only: {fmt(cs and cs * 1e3, 4)} ms")
                else:
                    jacobi[row.verdict()] += 1
                    cells.append(f"{row.verdict()} {fmt_ratio(row.ratio)} "
                                 f"({fmt(rs * 1e3, 4)} / {fmt(cs * 1e3, 4)} ms)")
            out.append(f"| {variant} | " + " | ".join(cells) + " |")
        out.append("")
    failed_checks = [key for key, per in jacobi_checks.items() if jacobi_check_problems(key, per, failed)]
    micro_all = sum(micro.values())
    jacobi_all = sum(jacobi.values())
    out += [f"At target: micro-benchmarks, {micro['PASS']} of {micro_all} family × PE count cells pass "
            f"({micro['NEAR']} near, {micro['FAIL']} fail); Jacobi, Rust ÷ CUDA time ✓ in {jacobi['✓']} of "
            f"{jacobi_all} variant × PE count cells ({jacobi['≈']} ≈, {jacobi['✗']} ✗, "
            f"{jacobi['FAILED']} failed); "
            f"Jacobi checks: {len(jacobi_checks) - len(failed_checks)} of {len(jacobi_checks)} pass.", ""]
    if failed:
        out += [f"Runs that did not exit 0: {len(failed)}: " + ", ".join(
            f"{job} [{impl} {pes_label(pes)} r{round_}] = {status}"
            for (job, impl, round_, pes), status in sorted(failed.items(), key=str)) + ".", ""]
    return out


# ------------------------------------------------------------------------------------------------
# Plots

def plots(prefix, cases, timing, pes_list):
    """{pes: [micro-benchmark images]} and the Jacobi images."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as error:  # noqa: BLE001 — any failure only costs the plots
        print(f"report: no plots ({error})", file=sys.stderr)
        return {}, []
    per_pes = defaultdict(list)
    for pes in pes_list:
        try:
            per_pes[pes] = micro_plots(plt, f"{prefix}-pes{pes}", [c for c in cases.values() if c.pes == pes],
                                       pes_label(pes))
        except Exception as error:  # noqa: BLE001 — a broken plot must not cost the others
            print(f"report: plots at {pes_label(pes)} failed ({error!r})", file=sys.stderr)
    jacobi = []
    try:
        jacobi = jacobi_plot(plt, prefix, timing)
    except Exception as error:  # noqa: BLE001
        print(f"report: the Jacobi plot failed ({error!r})", file=sys.stderr)
    return per_pes, jacobi


def micro_plots(plt, prefix, cases, label):
    written = []
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    bw = [c for c in cases if c.key[0] in ("put_bw", "get_bw")]
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
        fig.suptitle(f"NVSHMEM bandwidth, {label}: Rust (solid) vs CUDA C++ (dashed)")
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
            ax.set_title(f"{bench}, {label}: Rust ÷ CUDA (≥ 1: Rust as fast or faster)")
            ax.set_xlabel("bytes")
            ax.set_ylabel("ratio")
            ax.grid(True, alpha=0.3)
        axes[0][0].legend(fontsize=6, ncol=2)
        fig.tight_layout()
        path = f"{prefix}-bandwidth-ratio.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    lat = sorted((c for c in cases if not c.higher_is_better), key=sort_key)
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
        ax.set_title(f"NVSHMEM latencies, {label}: Rust vs CUDA C++ (lower is better)")
        ax.legend()
        ax.grid(True, axis="x", which="both", alpha=0.3)
        fig.tight_layout()
        path = f"{prefix}-latency.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def jacobi_plot(plt, prefix, timing):
    if not timing:
        return []
    keys = sorted(timing, key=jacobi_order)
    labels = [f"{v}\n{pes_label(p)}" for v, p in keys]
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(keys)), 4))
    xs = list(range(len(keys)))
    for offset, impl, label in ((-0.2, "rust", "Rust"), (0.2, "cuda", "CUDA C++")):
        heights = [1e3 * (JacobiRow(timing[k]).seconds(impl) or 0) for k in keys]
        ax.bar([x + offset for x in xs], heights, width=0.4, label=label)
    for x, (key, next_key) in enumerate(zip(keys, keys[1:])):
        if key[1] != next_key[1]:
            ax.axvline(x + 0.5, color="0.6", linewidth=1)
    ax.set_xticks(xs)
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("ms per iteration")
    ax.set_title("Jacobi: time per iteration by PE count (lower is better)")
    ax.legend()
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    path = f"{prefix}-jacobi.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [path]


# ------------------------------------------------------------------------------------------------

def jobs_markdown(jobs):
    out = ["## Appendix: runs", "", "In the order they ran.", "",
           "| run | PEs | MPS | program | round | exit status | seconds |", "|---|---|---|---|---|---|---|"]
    for j in jobs:
        status = j.get("status")
        shown = {"0": "0", "124": "124 (timed out)", "137": "137 (killed after timing out)",
                 "budget": "skipped (time budget)", "skipped": "skipped (timed out before)",
                 "missing": "not run (program not built)"}.get(status, status)
        pes = j["pes_n"] if j["pes_n"] is not None else "–"
        out.append(f"| {j.get('name')} | {pes} | {j.get('mps', '–')} | {j.get('run_impl')} | {j.get('round')} | "
                   f"{shown} | {j.get('seconds')} |")
    out.append("")
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", required=True)
    parser.add_argument("--machine")
    parser.add_argument("--prefix", required=True, help="output path prefix, e.g. OUT/bench-1gpu")
    parser.add_argument("--no-plots", action="store_true", help="write the Markdown only")
    args = parser.parse_args(argv)

    records = read_results(args.results)
    machine = read_machine(args.machine)
    cases = micro_cases(records)
    checks = [r for r in records if r["kind"] == "check"]
    skips = [r for r in records if r["kind"] == "skip"]
    jobs = [r for r in records if r["kind"] == "job"]
    na = [r for r in records if r["kind"] == "na"]
    timing, jacobi_checks = jacobi_runs(records)
    add_runs_without_figures(timing, jacobi_checks, jobs)
    failed = failed_runs(jobs)
    mark_failures(cases, checks, failed)
    rows = jacobi_rows(timing, failed)
    rounds = max([whole(r.get("round"), 1) for r in records if r["kind"] in ("result", "job")] or [1])
    # The PE counts: those the harness was asked for, and any that results came at.
    asked = []
    for token in machine.get("pes", "").split():  # "1 2 4" (older harnesses: "2 on 1 GPU(s), …")
        if whole(token) is None:
            break
        asked.append(whole(token))
    # (T1, the single-GPU Jacobi, runs at 1 PE whatever the PE counts are: it makes no section.)
    seen = [r["pes_n"] for r in records if r["kind"] in ("result", "check", "skip") and r.get("variant") != "single"]
    pes_list = pes_sort(asked + [p for p in seen if p is not None]) + ([None] if None in seen else [])
    for n in na:  # a line without a PE count (older harnesses) goes with the highest one
        if n["pes_n"] not in pes_list and pes_list:
            n["pes_n"] = pes_list[-1]
    os.makedirs(os.path.dirname(os.path.abspath(args.prefix)), exist_ok=True)
    try:
        micro_images, jacobi_images = ({}, []) if args.no_plots else plots(args.prefix, cases, timing, pes_list)
    except Exception as error:  # noqa: BLE001 — a broken plot must not cost the report
        print(f"report: plotting failed ({error!r}); the Markdown is written without plots", file=sys.stderr)
        micro_images, jacobi_images = {}, []
    t1 = t1_of(timing)

    failed_jobs = [j for j in jobs if j.get("status") not in ("0", "budget", "skipped")]
    failed_checks = [c for c in checks if check_failed(c)]
    failed_cases = [c for c in cases.values() if c.failed]
    caseless = families_without_cases(cases, skips, pes_list)
    failed_rows = [k for k, row in rows.items() if row.failed]
    failed_jacobi_checks = [k for k, per in jacobi_checks.items() if jacobi_check_problems(k, per, failed)]
    hung_jobs = [j for j in jobs if j.get("status") == "skipped"]
    budget_jobs = [j for j in jobs if j.get("status") == "budget"]
    lines = ["# nvshmem-rs benchmarks: Rust kernels vs CUDA C++ kernels on NVSHMEM", ""]
    lines += [f"- date: {machine.get('date', '–')}",
              f"- machine: {machine.get('gpu', '–')}, driver {machine.get('driver', '–')}, "
              f"{machine.get('gpus', '?')} GPU(s), {machine.get('cpus', '?')} CPUs",
              f"- NVSHMEM: {machine.get('nvshmem', '–')}",
              f"- nvcc: {machine.get('nvcc', '–')}",
              f"- commit: {machine.get('commit', '–')}",
              f"- PE counts: {', '.join(pes_label(p) for p in pes_list) or '–'}; rounds: "
              f"{machine.get('rounds', rounds)} (Jacobi timings: {machine.get('jacobi_rounds', machine.get('rounds', rounds))})"]
    for p in pes_list:
        if p is not None and f"pes-{p}" in machine:
            lines.append(f"  - {pes_label(p)}: {machine[f'pes-{p}']}")
    lines += [f"- runs: {len(jobs)}: {len(failed_jobs)} did not exit 0, {len(budget_jobs)} skipped (time budget "
              f"{machine.get('budget', '?')} s), {len(hung_jobs)} skipped (timed out before); "
              f"{machine.get('elapsed', '?')} s in all",
              ""]
    lines += summary_markdown(cases, rows, skips, pes_list, jacobi_checks, failed)
    lines += method(machine, machine.get("rounds", rounds)).splitlines() + [""]
    for p in pes_list:
        where = machine.get(f"pes-{p}")
        lines += [f"## {pes_label(p)}" + (f" ({where})" if where else ""), ""]
        lines += micro_section([c for c in cases.values() if c.pes == p],
                               [c for c in checks if c["pes_n"] == p],
                               [s for s in skips if s["pes_n"] == p], micro_images.get(p, []))
        lines += jacobi_section(p, timing, rows, jacobi_checks, [n for n in na if n["pes_n"] == p], t1, jobs,
                                failed)
    if jacobi_images:
        lines += ["## Jacobi at every PE count", ""]
        lines += [f"![{os.path.basename(i)}]({os.path.basename(i)})" for i in jacobi_images] + [""]
    lines += micro_appendix(cases, rounds) if cases else []
    lines += jobs_markdown(jobs)
    with open(f"{args.prefix}.md", "w", encoding="utf-8") as f:
        f.write("\n".join(lines))

    # The short summary the harness prints last.
    images = [i for p in pes_list for i in micro_images.get(p, [])] + jacobi_images
    print(f"report: {args.prefix}.md" + "".join(f", {os.path.basename(i)}" for i in images))
    for p in pes_list:
        print(f"  {pes_label(p)}:")
        for s in family_summary([c for c in cases.values() if c.pes == p]):
            print(f"    {s['bench']:16s} {s['compared']:3d} compared, Rust÷CUDA geo-mean {fmt_ratio(s['geomean']):>6s} "
                  f"(target {s['target']}), worst {fmt_ratio(s['worst']):>6s}, noise band {pct(s['band']):>7s}: "
                  f"{s['ok']} ✓ {s['near']} ≈ {s['bad']} ✗ {s['failed']} failed of {s['cases']} "
                  f"→ {s['verdict']}")
        for key in sorted((k for k in timing if k[1] == p), key=jacobi_order):
            row = rows[key]
            rs, cs = row.seconds("rust"), row.seconds("cuda")
            print(f"    jacobi {key[0]:11s}: Rust {fmt(rs and rs * 1e3, 4)} ms, CUDA {fmt(cs and cs * 1e3, 4)} ms, "
                  f"Rust÷CUDA {fmt_ratio(row.ratio)} {row.verdict()}")
        for key in sorted((k for k in jacobi_checks if k[1] == p), key=jacobi_order):
            per = jacobi_checks[key]
            print(f"    jacobi check {key[0]:11s}: " + ", ".join(
                f"{i} {r.get('check')}" for i in IMPLS for r in per.get(i, {}).values()))
    if budget_jobs:
        print(f"  {len(budget_jobs)} run(s) skipped: the harness's time budget was spent (BENCH_BUDGET_S)")
    if hung_jobs:
        print(f"  {len(hung_jobs)} run(s) skipped: the same program had run out of time before")
    if failed_jobs:
        print(f"  {len(failed_jobs)} run(s) did not exit 0: "
              + ", ".join(f"{j.get('name')}[{j.get('run_impl')} {pes_label(j['pes_n'])} r{j.get('round')}]="
                          f"{j.get('status')}" for j in failed_jobs))
    problems = [f"{len(failed_jobs)} run(s) did not exit 0"] if failed_jobs else []
    problems += [f"{len(failed_checks)} micro-benchmark data check(s) failed"] if failed_checks else []
    problems += [f"{len(failed_jacobi_checks)} Jacobi check row(s) failed"] if failed_jacobi_checks else []
    problems += [f"{len(failed_cases)} micro-benchmark case(s) failed"] if failed_cases else []
    problems += [f"{len(caseless)} micro-benchmark family × PE count cell(s) without a case"] if caseless else []
    problems += [f"{len(failed_rows)} Jacobi timing row(s) failed"] if failed_rows else []
    if problems:
        print("report: FAILED: " + "; ".join(problems) + " (see the report)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
