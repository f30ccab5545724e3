"""Reading the harness's files: the tagged result lines of bench/run-bench.sh (the input lines that
bench/report.py's docstring lists) and its machine file of `key: value` lines."""

import math
import os
import re

# Where a `key=` starts: at the beginning or after white space.
KEY = re.compile(r"(?:^|\s)([A-Za-z_][A-Za-z0-9_]*)=")
# The two programs of every pair.
IMPLS = ("rust", "cuda")


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


def failed_runs(jobs):
    """{(job, impl, round, pes): status} of the runs that did not exit 0 (a run the harness skipped
    for its time budget, or for an earlier timeout, is not one: the latter failed before)."""
    return {(j.get("name"), j.get("run_impl"), whole(j.get("round"), 1), j["pes_n"]): j.get("status")
            for j in jobs if j.get("status") not in ("0", "budget", "skipped")}


def check_failed(check):
    return check.get("status") != "pass"
