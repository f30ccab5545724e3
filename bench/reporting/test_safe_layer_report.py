#!/usr/bin/env python3
"""safe_layer_report.py on synthetic result files: equal cells pass, a slowed safe cell is named."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from reporting import safe_layer_report  # noqa: E402 — found through the path set above


def line(value, bench="put_bw", scope="block", size=65536, grid=8):
    return (f"[pe 0] result: bench={bench} impl=rust scope={scope} bytes={size} grid={grid} "
            f"pes=2 value={value} unit=GB/s\n")


class SafeLayerReport(unittest.TestCase):
    def write(self, files):
        directory = tempfile.mkdtemp()
        for name, text in files.items():
            with open(os.path.join(directory, name), "w") as f:
                f.write(text)
        return directory

    def test_equal_figures_are_within_the_band(self):
        directory = self.write({"raw1.txt": line(100.0), "raw2.txt": line(101.0),
                                "safe1.txt": line(100.5), "safe2.txt": line(99.8)})
        text, ok = safe_layer_report.report(safe_layer_report.read(directory))
        self.assertTrue(ok, text)
        self.assertIn("| put_bw | block | 65536 | 8 | 100.5 | 100.2 | 0.997 | ±0.030 | ≈ |", text)

    def test_the_band_is_the_larger_spread_of_the_two(self):
        # Raw rounds 4 % either side of their median: the spread of reporting.stats, 0.040.
        directory = self.write({"raw1.txt": line(96.0), "raw2.txt": line(100.0), "raw3.txt": line(104.0),
                                "safe1.txt": line(100.0), "safe2.txt": line(100.0)})
        text, ok = safe_layer_report.report(safe_layer_report.read(directory))
        self.assertTrue(ok, text)
        self.assertIn("| 100.0 | 100.0 | 1.000 | ±0.040 | ≈ |", text)

    def test_a_slowed_safe_cell_is_named(self):
        directory = self.write({"raw1.txt": line(100.0) + line(50.0, scope="warp"),
                                "safe1.txt": line(90.0) + line(50.0, scope="warp")})
        text, ok = safe_layer_report.report(safe_layer_report.read(directory))
        self.assertFalse(ok)
        self.assertIn("Slower outside the band: put_bw block 65536 B grid 8 (0.900)", text)

    def test_a_cell_only_one_side_ran_is_reported_missing(self):
        directory = self.write({"raw1.txt": line(100.0), "safe1.txt": ""})
        text, ok = safe_layer_report.report(safe_layer_report.read(directory))
        self.assertFalse(ok)
        self.assertIn("(missing)", text)


if __name__ == "__main__":
    unittest.main()
