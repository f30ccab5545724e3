"""The Jacobi rows: per variant and PE count, both programs' seconds per iteration over the rounds
(timing runs) and their `--check` results (check runs), the ratio and its verdict against the noise
band of the Jacobi timings at that PE count, and why a row failed."""

from collections import defaultdict

from .parse import IMPLS, number, whole
from .stats import median, percentile, spread, verdict

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
                "spread": spread(secs.values()),
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


def t1_of(timing):
    single = timing.get(("single", 1), {}).get("cuda")
    return median(number(r.get("seconds_per_iter")) for r in single.values()) if single else None
