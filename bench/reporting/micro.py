"""The micro-benchmark cases: one per benchmark, scope, size, grid and PE count, with both
programs' figures per round, their ratio and verdict, the noise band of their family, and why a
case failed; and the summary of each family at one PE count."""

from collections import defaultdict

from .parse import IMPLS, check_failed, number, whole
from .stats import TOLERANCE, geomean, median, percentile, spread, verdict

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
        return spread(self.values[impl].values())

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
