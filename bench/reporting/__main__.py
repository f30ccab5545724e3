"""Runs one report of this package: `python3 bench/reporting NAME ARGS...`, NAME one of REPORTS."""
import os
import runpy
import sys

REPORTS = ("report", "ab_report", "latency_report", "safe_layer_report", "baseline")

# Run as a folder, this folder is first on the path: the reports import the package by its name,
# from the folder above.
sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if len(sys.argv) < 2 or sys.argv[1] not in REPORTS:
    sys.exit(f"usage: python3 bench/reporting NAME ARGS... (NAME: {', '.join(REPORTS)})")
runpy.run_module(f"reporting.{sys.argv.pop(1)}", run_name="__main__", alter_sys=True)
