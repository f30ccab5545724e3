"""One benchmark run read as a whole: its micro-benchmark cases and Jacobi rows with their failures
marked, the PE counts it covers, its rounds, and what makes the report fail."""

from dataclasses import dataclass

from .jacobi import add_runs_without_figures, jacobi_check_problems, jacobi_rows, jacobi_runs, t1_of
from .micro import families_without_cases, mark_failures, micro_cases
from .parse import check_failed, failed_runs, whole


@dataclass
class Analysis:
    machine: dict  # the machine file's `key: value` lines
    cases: dict  # micro-benchmark cases by key
    checks: list  # the micro-benchmarks' data checks
    skips: list  # the cases that did not run
    jobs: list  # every run, in the order they ran
    na: list  # the Jacobi variants that do not apply here
    timing: dict  # the Jacobi timing runs, (variant, pes) → impl → round → record
    jacobi_checks: dict  # the Jacobi check runs, the same way
    failed: dict  # the runs that did not exit 0 (parse.failed_runs)
    rows: dict  # the Jacobi timing rows, (variant, pes) → JacobiRow
    rounds: int  # the most rounds any result or run names
    pes_list: list  # the PE counts, each with a section (None: results without one)
    t1: float  # the CUDA single-GPU code's seconds per iteration, or None

    def failed_jobs(self):
        return [j for j in self.jobs if j.get("status") not in ("0", "budget", "skipped")]

    def hung_jobs(self):
        """The runs skipped because the same program had run out of time before."""
        return [j for j in self.jobs if j.get("status") == "skipped"]

    def budget_jobs(self):
        """The runs skipped because the time budget was spent."""
        return [j for j in self.jobs if j.get("status") == "budget"]

    def problems(self):
        """Why the run fails, one phrase each; empty where it does not (whatever the ratios are)."""
        failed_jobs = self.failed_jobs()
        failed_checks = [c for c in self.checks if check_failed(c)]
        failed_jacobi_checks = [k for k, per in self.jacobi_checks.items()
                                if jacobi_check_problems(k, per, self.failed)]
        failed_cases = [c for c in self.cases.values() if c.failed]
        caseless = families_without_cases(self.cases, self.skips, self.pes_list)
        failed_rows = [k for k, row in self.rows.items() if row.failed]
        problems = [f"{len(failed_jobs)} run(s) did not exit 0"] if failed_jobs else []
        problems += [f"{len(failed_checks)} micro-benchmark data check(s) failed"] if failed_checks else []
        problems += [f"{len(failed_jacobi_checks)} Jacobi check row(s) failed"] if failed_jacobi_checks else []
        problems += [f"{len(failed_cases)} micro-benchmark case(s) failed"] if failed_cases else []
        problems += [f"{len(caseless)} micro-benchmark family × PE count cell(s) without a case"] if caseless else []
        problems += [f"{len(failed_rows)} Jacobi timing row(s) failed"] if failed_rows else []
        return problems


def pes_sort(values):
    return sorted({v for v in values}, key=lambda p: (p is None, p or 0))


def analyse(records, machine):
    """The run of `records` (parse.read_results) on `machine` (parse.read_machine)."""
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
    return Analysis(machine=machine, cases=cases, checks=checks, skips=skips, jobs=jobs, na=na, timing=timing,
                    jacobi_checks=jacobi_checks, failed=failed, rows=rows, rounds=rounds, pes_list=pes_list,
                    t1=t1_of(timing))
