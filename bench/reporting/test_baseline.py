#!/usr/bin/env python3
"""CPU tests of bench/reporting's baseline guard on synthetic result files: a baseline accepted from one run, the
guard on the next (standard library only).

    python3 -B bench/reporting/test_baseline.py          (./x test runs it)
"""

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from reporting import baseline  # noqa: E402 — found through the path set above

GPU = "NVIDIA H200, 143771 MiB"
MACHINE = {"micro_args": "--sizes 4K --reps 15", "collective_args": "--lat-iters 20"}


JACOBI_MS = {("p", 2): 0.537, ("put-block", 2): 0.538, ("signal", 4): 0.525}


def bench_run(jacobi_ms=None, bandwidth=None, spread=0.002, rust_slower=None):
    """bench/run-bench.sh result lines, three rounds: a Jacobi timing per (variant, PEs) of
    `jacobi_ms` and a put_bw case, Rust and CUDA, each round `spread` apart; the Rust timings of
    the cells in `rust_slower` that many times slower."""
    jacobi_ms = {**JACOBI_MS, **(jacobi_ms or {})}
    bandwidth = bandwidth if bandwidth is not None else 44.9
    lines = []
    for round_, factor in ((1, 1.0), (2, 1.0 + spread), (3, 1.0 - spread)):
        for (variant, pes), ms in jacobi_ms.items():
            for impl in ("rust", "cuda"):
                slower = (rust_slower or {}).get((variant, pes), 1.0) if impl == "rust" else 1.0
                lines.append(f"result: variant={variant} pes={pes} nx=16384 ny=16384 iters=1000 norm_every=100 "
                             f"seconds_per_iter={ms * factor * slower / 1e3:.9f} gbps=1 check=skipped "
                             f"run_impl={impl} round={round_} job=jacobi-{variant} run_pes={pes}")
        for impl in ("rust", "cuda"):
            lines.append(f"result: bench=put_bw impl={impl} scope=block bytes=1048576 grid=1 pes=2 "
                         f"value={bandwidth * factor} unit=GB/s run_impl={impl} round={round_} "
                         f"job=micro-one-sided run_pes=2")
    return lines


def latency_run(us):
    """bench/run-latency.sh result lines: one run per program and cell of `us` µs per iteration."""
    lines = []
    for (variant, pes, n, every), value in us.items():
        for impl in ("rust", "cuda"):
            lines.append(f"result: variant={variant} pes={pes} nx={n} ny={n} iters=5000 norm_every={every} "
                         f"seconds_per_iter={value / 1e6:.9f} floor_fraction=0.1 impl={impl}")
    return lines


class Guard(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.saved = baseline.BASELINES
        baseline.BASELINES = os.path.join(self.folder.name, "baseline")

    def tearDown(self):
        baseline.BASELINES = self.saved
        self.folder.cleanup()

    def write(self, name, lines):
        path = os.path.join(self.folder.name, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def accept(self, suite, lines, machine=MACHINE):
        with contextlib.redirect_stdout(io.StringIO()):
            baseline.accept(suite, GPU, [self.write("accepted.txt", lines)], machine, "a synthetic run", [])

    def check(self, suite, lines, machine=MACHINE):
        out = io.StringIO()
        status = baseline.check(suite, GPU, [self.write("run.txt", lines)], machine, out)
        return status, out.getvalue()

    def test_the_model_names_the_file(self):
        self.assertEqual(baseline.model(GPU), "h200")
        self.assertEqual(baseline.model("NVIDIA H100 80GB HBM3"), "h100-80gb-hbm3")

    def test_the_same_figures_pass(self):
        self.accept("bench-1gpu", bench_run())
        status, out = self.check("bench-1gpu", bench_run())
        self.assertEqual(status, 0, out)
        self.assertIn("4 cell(s) compared", out)
        self.assertIn("0 slower than the baseline", out)

    def test_a_slowed_kernel_fails_the_guard_naming_its_cell_alone(self):
        # The planted defect: Rust's p at 2 PEs 10 % slower, its twin and every other cell as before.
        self.accept("bench-1gpu", bench_run())
        status, out = self.check("bench-1gpu", bench_run(rust_slower={("p", 2): 1.10}))
        self.assertEqual(status, 1, out)
        self.assertIn("SLOWER jacobi p pes=2 nx=16384 ny=16384 iters=1000 norm_every=100: 590.70 µs against "
                      "537.00 µs, +10.0% (band 3.0%); the CUDA C++ twin +0.0%", out)
        self.assertEqual(out.count("SLOWER"), 1, out)

    def test_every_slower_cell_is_named(self):
        self.accept("bench-1gpu", bench_run())
        status, out = self.check("bench-1gpu", bench_run({("p", 2): 0.6, ("put-block", 2): 0.6}))
        self.assertEqual(status, 1, out)
        self.assertIn("SLOWER jacobi p pes=2", out)
        self.assertIn("SLOWER jacobi put-block pes=2", out)
        self.assertNotIn("signal", out)

    def test_a_lower_bandwidth_is_slower(self):
        self.accept("bench-1gpu", bench_run())
        status, out = self.check("bench-1gpu", bench_run(bandwidth=40.0))
        self.assertEqual(status, 1, out)
        self.assertIn("SLOWER micro put_bw scope=block bytes=1048576 grid=1 pes=2: 40 GB/s against 44.9 GB/s", out)
        status, out = self.check("bench-1gpu", bench_run(bandwidth=50.0))
        self.assertEqual(status, 0, out)
        self.assertIn("0 slower than the baseline beyond the noise band, 1 faster", out)
        self.assertIn("faster micro put_bw scope=block bytes=1048576 grid=1 pes=2: 50 GB/s against 44.9 GB/s, "
                      "-10.2% (band 3.0%)", out)

    def test_a_change_inside_the_noise_band_passes(self):
        self.accept("bench-1gpu", bench_run())
        status, out = self.check("bench-1gpu", bench_run({("p", 2): 0.537 * 1.02}))
        self.assertEqual(status, 0, out)
        # 5 % slower, but this run's rounds spread by 6 %: not told from noise.
        status, out = self.check("bench-1gpu", bench_run({("p", 2): 0.537 * 1.05}, spread=0.06))
        self.assertEqual(status, 0, out)
        status, out = self.check("bench-1gpu", bench_run({("p", 2): 0.537 * 1.05}))
        self.assertEqual(status, 1, out)

    def test_other_micro_arguments_leave_the_micro_cells_out(self):
        self.accept("bench-1gpu", bench_run())
        quick = {"micro_args": "--sizes 4K --reps 5", "collective_args": "--lat-iters 20"}
        status, out = self.check("bench-1gpu", bench_run({("p", 2): 0.6}, bandwidth=1.0), quick)
        self.assertEqual(status, 1, out)
        self.assertIn("micro-benchmark cells not compared, their arguments differ", out)
        self.assertNotIn("SLOWER micro", out)
        self.assertIn("SLOWER jacobi p pes=2", out)

    def test_no_baseline_for_the_model_compares_nothing_and_says_so(self):
        status, out = self.check("bench-1gpu", bench_run())
        self.assertEqual(status, 0, out)
        self.assertIn("no baseline for this GPU model and suite", out)

    def test_the_latency_suite_names_a_slowed_cell(self):
        cells = {("put-block", 4, 1024, 1): 20.0, ("p", 4, 1024, 1): 20.7}
        self.accept("latency-1gpu", latency_run(cells))
        status, out = self.check("latency-1gpu", latency_run(cells))
        self.assertEqual(status, 0, out)
        status, out = self.check("latency-1gpu", latency_run({**cells, ("p", 4, 1024, 1): 22.0}))
        self.assertEqual(status, 1, out)
        self.assertIn("SLOWER jacobi p pes=4 nx=1024 ny=1024 iters=5000 norm_every=1: 22.00 µs against 20.70 µs",
                      out)

    def test_accepting_writes_one_cell_a_line_and_keeps_the_other_suites(self):
        self.accept("bench-1gpu", bench_run())
        self.accept("latency-1gpu", latency_run({("p", 1, 1024, 100): 4.0}))
        path = baseline.baseline_path(GPU)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        data = json.loads(text)
        self.assertEqual(sorted(data["suites"]), ["bench-1gpu", "latency-1gpu"])
        self.assertEqual(data["suites"]["bench-1gpu"]["args"], MACHINE)
        self.assertEqual(text.count('"jacobi p pes=2 nx=16384'), 1)
        self.assertTrue(any(line.startswith('    "jacobi p pes=2 nx=16384') and line.rstrip().endswith("},")
                            for line in text.splitlines()), text)


if __name__ == "__main__":
    unittest.main()
