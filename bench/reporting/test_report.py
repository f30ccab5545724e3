#!/usr/bin/env python3
"""CPU tests of bench/reporting's report and its parts: synthetic result files in, verdicts, summary
and exit status out.

    python3 -B bench/reporting/test_report.py          (./x test runs it)
"""

import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from reporting import report  # noqa: E402 — found through the path set above
from reporting.stats import verdict  # noqa: E402


def bw(impl, round_, value, scope="block", size=4096, grid=1, job="micro-one-sided", pes=2):
    return (f"result: bench=put_bw impl={impl} scope={scope} bytes={size} grid={grid} pes={pes} value={value} "
            f"unit=GB/s run_impl={impl} round={round_} job={job} run_pes={pes}")


def job(impl, round_, status=0, name="micro-one-sided", pes=2):
    return f"job: name={name} run_impl={impl} round={round_} pes={pes} mps=on status={status} seconds=1.0"


def check(impl, round_, status="pass", mismatches=0, scope="block", size=4096, grid=1, pes=2):
    return (f"check: bench=put_bw impl={impl} scope={scope} bytes={size} grid={grid} pes={pes} status={status} "
            f"mismatches={mismatches} run_impl={impl} round={round_} job=micro-one-sided run_pes={pes}")


def jacobi(impl, round_, seconds, check_="skipped", variant="p", name=None, pes=2):
    name = name or f"jacobi-{variant}"
    return (f"result: variant={variant} pes={pes} nx=64 ny=64 iters=10 norm_every=5 seconds_per_iter={seconds} "
            f"gbps=1.0 check={check_} run_impl={impl} round={round_} job={name} run_pes={pes}")


def clean_run(rust=(10.0, 10.0, 10.0), cuda=(9.0, 9.0, 9.0)):
    """Two bandwidth cases (block and thread scope), three rounds each, Rust faster; every run
    exits 0 and every check passes."""
    lines = []
    for r in (1, 2, 3):
        for scope in ("block", "thread"):
            lines += [bw("rust", r, rust[r - 1], scope), bw("cuda", r, cuda[r - 1], scope),
                      check("rust", r, scope=scope), check("cuda", r, scope=scope)]
        lines += [job("rust", r), job("cuda", r)]
    return lines


class Run:
    """report.main on `lines`: its exit status, its Markdown and what it printed."""

    def __init__(self, lines):
        with tempfile.TemporaryDirectory() as folder:
            results = os.path.join(folder, "results.txt")
            with open(results, "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                self.status = report.main(["--results", results, "--prefix", os.path.join(folder, "bench"),
                                           "--no-plots"])
            with open(os.path.join(folder, "bench.md"), encoding="utf-8") as f:
                self.markdown = f.read()
        self.printed = out.getvalue() + err.getvalue()

    def summary_row(self, name):
        summary = self.markdown.split("## Summary", 1)[1].split("## Method", 1)[0]
        return next(line for line in summary.splitlines() if line.startswith(f"| {name} "))


class Verdict(unittest.TestCase):
    def test_at_target_only_outside_the_noise_band(self):
        self.assertEqual(verdict(1.03, True, 0.02), "✓")
        self.assertEqual(verdict(1.01, True, 0.02), "≈")  # inside the band: not told from 1.00
        self.assertEqual(verdict(0.99, False, 0.02), "≈")
        self.assertEqual(verdict(0.97, False, 0.02), "✓")
        self.assertEqual(verdict(1.00, True, None), "✓")  # one round: no band

    def test_a_miss_fails_beyond_three_percent_and_the_band(self):
        self.assertEqual(verdict(0.98, True, 0.0), "≈")
        self.assertEqual(verdict(0.95, True, 0.02), "✗")
        self.assertEqual(verdict(0.95, True, 0.06), "≈")
        self.assertEqual(verdict(1.05, False, 0.01), "✗")


class Report(unittest.TestCase):
    def test_a_clean_run_passes_and_exits_0(self):
        run = Run(clean_run())
        self.assertEqual(run.status, 0, run.printed)
        self.assertIn("PASS (2 · 0 · 0 · 0 of 2)", run.summary_row("put_bw"))
        self.assertIn("micro-benchmarks, 1 of 1 family × PE count cells pass", run.markdown)

    def test_a_failed_run_fails_its_cases_and_the_exit_status(self):
        lines = [line.replace("status=0", "status=1") if line == job("rust", 2) else line for line in clean_run()]
        run = Run(lines)
        self.assertEqual(run.status, 1)
        self.assertIn("FAIL (0 · 0 · 0 · 2 of 2)", run.summary_row("put_bw"))
        self.assertIn("rust r2: run micro-one-sided exited 1", run.markdown)

    def test_a_failed_data_check_fails_its_case(self):
        lines = clean_run() + [check("cuda", 3, status="fail", mismatches=7, scope="thread")]
        run = Run(lines)
        self.assertEqual(run.status, 1)
        self.assertIn("FAIL (1 · 0 · 0 · 1 of 2)", run.summary_row("put_bw"))
        self.assertIn("cuda r3: data check fail, 7 mismatches", run.markdown)

    def test_a_check_of_an_older_runner_speaks_for_its_whole_sweep(self):
        old = ("check: bench=put_bw impl=rust bytes=4096 status=fail mismatches=1 run_impl=rust round=1 "
               "job=micro-one-sided run_pes=2")
        run = Run(clean_run() + [old])
        self.assertEqual(run.status, 1)
        self.assertIn("FAIL (0 · 0 · 0 · 2 of 2)", run.summary_row("put_bw"))

    def test_a_missing_figure_is_a_failure_and_is_counted(self):
        lines = [line for line in clean_run() if not (line.startswith("result:") and "impl=rust scope=thread" in line)]
        run = Run(lines)
        self.assertEqual(run.status, 1)
        self.assertIn("FAIL (1 · 0 · 0 · 1 of 2)", run.summary_row("put_bw"))
        self.assertIn("no rust figure", run.markdown)

    def test_a_value_that_is_not_a_number_is_a_failure(self):
        lines = [bw("rust", 1, "nan", "thread") if line == bw("rust", 1, 10.0, "thread") else line
                 for line in clean_run()]
        run = Run(lines)
        self.assertEqual(run.status, 1)
        self.assertIn("FAIL (1 · 0 · 0 · 1 of 2)", run.summary_row("put_bw"))
        self.assertIn("rust r1: value nan", run.markdown)

    def test_a_ratio_inside_the_noise_band_is_not_at_target(self):
        # Rust 1 % faster, but its rounds spread by 2 %: not told from the target.
        run = Run(clean_run(rust=(10.1, 10.3, 9.9), cuda=(10.0, 10.0, 10.0)))
        self.assertEqual(run.status, 0, run.printed)
        self.assertIn("NEAR (0 · 2 · 0 · 0 of 2)", run.summary_row("put_bw"))
        self.assertIn("micro-benchmarks, 0 of 1 family × PE count cells pass (1 near, 0 fail)", run.markdown)

    def test_a_family_without_a_case_at_a_pe_count_fails(self):
        lines = clean_run() + [bw(i, 1, 5.0, pes=4) for i in ("rust", "cuda")]
        lines = [line.replace("bench=put_bw", "bench=get_bw") if "pes=4" in line else line for line in lines]
        run = Run(lines)
        self.assertEqual(run.status, 1)
        self.assertIn("FAIL: no case", run.summary_row("put_bw"))
        self.assertIn("2 of 4 family × PE count cells pass (0 near, 2 fail)", run.markdown)

    def test_a_jacobi_row_without_a_rust_figure_fails(self):
        lines = clean_run() + [jacobi("cuda", 1, 0.001), job("rust", 1, 137, "jacobi-p"), job("cuda", 1, 0, "jacobi-p")]
        run = Run(lines)
        self.assertEqual(run.status, 1)
        self.assertIn("| p | FAILED: rust r1: run jacobi-p exited 137; no rust figure |", run.markdown)

    def test_a_failed_jacobi_check_fails_the_exit_status(self):
        lines = clean_run() + [jacobi(i, 1, 0.001, "pass" if i == "cuda" else "fail", name="jacobi-check-p")
                               for i in ("rust", "cuda")]
        run = Run(lines)
        self.assertEqual(run.status, 1)
        self.assertIn("Jacobi checks: 0 of 1 pass", run.markdown)
        self.assertIn("FAILED: rust r1: check=fail", run.markdown)


if __name__ == "__main__":
    unittest.main()
