#!/usr/bin/env python3
"""Tests of bench/reporting's latency_report on synthetic result files (standard library only):
python3 -B bench/reporting/test_latency_report.py."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def line(variant, pes, n, every, us, impl, graph=None, fit=3400.0, launch=4.0, barrier=9.0, fraction=0.97):
    graph_field = f" graph={graph}" if graph else ""
    floors = f" fit_copy_gbps={fit} launch_us={launch} barrier_us={barrier}" if impl == "rust" else ""
    return (f"result: variant={variant} pes={pes} nx={n} ny={n} iters=5000 norm_every={every}{graph_field} "
            f"seconds_per_iter={us / 1e6:.9f} bytes_per_iter={2 * n * n * 4} gbps=1 copy_gbps=4200 "
            f"floor_fraction={fraction} check=skipped norm=1 registers=56 blocks_per_sm=9{floors} impl={impl}\n")


def report(lines):
    with tempfile.TemporaryDirectory() as folder:
        results = os.path.join(folder, "results.txt")
        with open(results, "w") as f:
            f.writelines(lines)
        prefix = os.path.join(folder, "latency")
        subprocess.run([sys.executable, "-B", HERE, "latency_report", prefix, results],
                       check=True, capture_output=True)
        with open(prefix + ".md") as f:
            return f.read()


def row(text, start):
    return next(l for l in text.splitlines() if l.startswith(start))


class LatencyReport(unittest.TestCase):
    def test_a_cell_shows_both_times_and_the_ratio(self):
        text = report([line("put-block", 1, 1024, 100, 4.0, "rust"), line("put-block", 1, 1024, 100, 5.0, "cuda")])
        self.assertIn("| 1024² | 4.00 / 5.00 (0.800) |", text)

    def test_the_method_counts_the_runs_per_program(self):
        once = [line("put-block", 1, 1024, 100, 4.0, "rust"), line("put-block", 1, 1024, 100, 5.0, "cuda")]
        self.assertIn("(here 1 per program)", report(once))
        twice = once + [line("put-block", 1, 1024, 100, 4.2, "rust")]
        self.assertIn("(here 1 to 2 per program)", report(twice))

    def test_the_floor_is_memory_or_launch_and_the_meeting(self):
        # 1024²: 8 MiB at 3355.4432 GB/s is 2.5 µs; a launch of 4 µs wins, plus a 9 µs meeting at 4 PEs.
        text = report([line("put-block", 4, 1024, 1, 20.0, "rust", fit=3355.4432)])
        self.assertIn("2.50, 4.00, 9.00 → 13.00", row(text, "| 1024² |"))
        text = report([line("put-block", 1, 1024, 1, 20.0, "rust", fit=3355.4432)])
        self.assertIn("2.50, 4.00, 0.00 → 4.00", row(text, "| 1024² |"))

    def test_a_target_is_met_by_the_best_variant_only(self):
        text = report([line("put-block", 1, 1024, 100, 4.0, "rust"), line("persistent", 1, 1024, 100, 2.9, "rust")])
        self.assertIn("| ≤ 3.0 | 2.90 (persistent) | ✓ |", row(text, "| 1024², norm every 100, 1 PE"))
        text = report([line("put-block", 1, 1024, 100, 4.0, "rust"), line("persistent", 1, 1024, 100, 3.1, "rust")])
        self.assertIn("| ≤ 3.0 | 3.10 (persistent) | ✗ |", row(text, "| 1024², norm every 100, 1 PE"))

    def test_the_worst_variant_at_4_pes_is_bounded(self):
        lines = [line("put-block", 4, 1024, 1, 12.0, "rust"), line("p", 4, 1024, 1, 36.0, "rust")]
        self.assertIn("36.00 (p) | ✗ |", row(report(lines), "| 1024², norm every iteration, 4 PEs, worst"))

    def test_rust_above_the_noise_band_fails_the_ratio_target(self):
        within = [line("signal", 2, 2048, 1, 10.3, "rust"), line("signal", 2, 2048, 1, 10.0, "cuda")]
        self.assertIn("0 above the band | ✓ |", row(report(within), "| Rust ≤ 1.00 × CUDA C++"))
        above = [line("signal", 2, 2048, 1, 10.4, "rust"), line("signal", 2, 2048, 1, 10.0, "cuda")]
        self.assertIn("1 above the band", row(report(above), "| Rust ≤ 1.00 × CUDA C++"))

    def test_graph_runs_are_their_own_variant(self):
        text = report([line("put-block", 1, 1024, 100, 4.0, "rust"), line("put-block", 1, 1024, 100, 3.0, "rust", graph=100)])
        self.assertIn("| 1024² | 4.00 | 3.00 |", text)

    def test_the_large_grid_keeps_the_copy_rate(self):
        lines = [line("put-block", 1, 16384, 100, 530.0, "rust", fraction=0.94)]
        self.assertIn("| ≥ 0.95 | 0.940 | ✗ |", report(lines))

    def test_persistent_must_not_be_slower_on_small_grids(self):
        lines = [line("put-block", 4, 2048, 100, 10.0, "rust"), line("persistent", 4, 2048, 100, 10.5, "rust")]
        self.assertIn("| 10.50 | ✗ |", row(report(lines), "| persistent no slower than the others, 2048²"))


if __name__ == "__main__":
    unittest.main()
