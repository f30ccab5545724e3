#!/usr/bin/env python3
"""bench/reporting's ab_report on hand-made result lines."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from reporting import ab_report  # noqa: E402 — found through the path set above

LINES = [
    "result: bench=pingpong_p impl=rust scope=thread bytes=8 grid=1 pes=2 value=0.760 unit=us build=before round=1",
    "result: bench=pingpong_p impl=rust scope=thread bytes=8 grid=1 pes=2 value=0.740 unit=us build=before round=2",
    "result: bench=pingpong_p impl=rust scope=thread bytes=8 grid=1 pes=2 value=1.280 unit=us build=after round=1",
    "result: bench=pingpong_p impl=rust scope=thread bytes=8 grid=1 pes=2 value=1.260 unit=us build=after round=2",
    "result: variant=p pes=1 nx=64 ny=64 iters=10 norm_every=1 seconds_per_iter=0.000010 check=pass build=before round=1",
    "result: variant=p pes=1 nx=64 ny=64 iters=10 norm_every=1 seconds_per_iter=0.000011 check=pass build=after round=1",
    "job: name=x status=0 build=after",
    "result: bench=put_bw impl=rust scope=warp bytes=65536 grid=8 pes=2 value=250.0 unit=GB/s build=before round=1",
    "result: bench=put_bw impl=rust scope=warp bytes=65536 grid=8 pes=2 value=200.0 unit=GB/s build=after round=1",
    "result: bench=put_bw impl=rust scope=warp bytes=65536 grid=132 pes=2 value=500.0 unit=GB/s build=before round=1",
    "result: bench=put_bw impl=rust scope=warp bytes=65536 grid=132 pes=2 value=500.0 unit=GB/s build=after round=1",
]


class AbReport(unittest.TestCase):
    def test_cells_take_each_builds_median_and_ratio(self):
        text, missing = ab_report.render(ab_report.collect(LINES), ["before", "after"])
        self.assertEqual(missing, 0)
        self.assertIn("| micro bench=pingpong_p scope=thread bytes=8 pes=2 | 0.750 | 1.270 | 1.693 | 0.013 |", text)
        self.assertIn("| jacobi variant=p nx=64 norm_every=1 pes=1 | 10.000 | 11.000 | 1.100 | – |", text)

    def test_bandwidths_become_time_per_volume_per_grid(self):
        text, _ = ab_report.render(ab_report.collect(LINES), ["before", "after"])
        # 20 % less bandwidth is 1.25 times the time per byte: a slower build reads above 1.
        self.assertIn("| micro bench=put_bw scope=warp bytes=65536 pes=2 grid=8 [ms/GB] | 4.000 | 5.000 | 1.250 | – |", text)
        self.assertIn("| micro bench=put_bw scope=warp bytes=65536 pes=2 grid=132 [ms/GB] | 2.000 | 2.000 | 1.000 | – |", text)

    def test_a_cell_missing_from_a_build_is_counted(self):
        text, missing = ab_report.render(ab_report.collect(LINES[:2]), ["before", "after"])
        self.assertEqual(missing, 1)
        self.assertIn("1 cell(s) without a figure from every build", text)


if __name__ == "__main__":
    unittest.main()
