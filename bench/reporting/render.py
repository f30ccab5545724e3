"""The report in Markdown: the header, the summary of every PE count side by side, the method (the
template method.md, filled in from the machine file), one section per PE count, the appendices;
and the short summary the harness prints last."""

import os
import string
from collections import defaultdict

from .jacobi import JACOBI_ORDER, check_job, jacobi_check_problems, jacobi_order, only_cuda
from .micro import SCOPE_ORDER, bench_order, family_summary, sort_key
from .parse import IMPLS, check_failed, number, whole
from .stats import TOLERANCE

METHOD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "method.md")


def fmt(value, digits=3):
    if value is None:
        return "–"
    if value == 0:
        return "0"
    magnitude = abs(value)
    if magnitude >= 1000:
        return f"{value:,.0f}"
    if magnitude >= 100:
        return f"{value:.1f}"
    if magnitude >= 1:
        return f"{value:.{digits}g}" if magnitude < 10 else f"{value:.2f}"
    return f"{value:.{digits}g}"


def fmt_ratio(value):
    return "–" if value is None else f"{value:.3f}"


def pct(value):
    return "–" if value is None else f"{100 * value:.1f} %"


def human_bytes(n):
    n = int(n)
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} B"


def pes_label(pes):
    return "? PEs" if pes is None else f"{pes} PE" + ("" if pes == 1 else "s")


def micro_section(cases, checks, skips, images):
    """The micro-benchmark part of one PE count's section."""
    out = []
    if not cases:
        out += ["No micro-benchmark results at this PE count.", ""]
    else:
        out += ["### Micro-benchmarks: summary", "",
                "| benchmark | unit | target (Rust ÷ CUDA) | cases | compared | geo-mean ratio | worst | best | "
                "noise band | ✓ | ≈ | ✗ | failed | verdict |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for s in family_summary(cases):
            out.append(f"| {s['bench']} | {s['unit']} | {s['target']} | {s['cases']} | {s['compared']} | "
                       f"{fmt_ratio(s['geomean'])} | {fmt_ratio(s['worst'])} | {fmt_ratio(s['best'])} | "
                       f"{pct(s['band'])} | {s['ok']} | {s['near']} | {s['bad']} | {s['failed']} | {s['verdict']} |")
        out.append("")
    failed = sorted((c for c in cases if c.failed), key=sort_key)
    if failed:
        out += ["#### Failed cases", "", "| benchmark | scope | bytes | grid | why |", "|---|---|---|---|---|"]
        for c in failed:
            out.append(f"| {c.key[0]} | {c.key[1]} | {human_bytes(c.key[2])} | {c.key[3]} | "
                       f"{'; '.join(c.problems).replace('|', '/')} |")
        out.append("")
    if checks:
        out += ["Data checks after each bandwidth case (the receiving PE compares the bytes the case wrote "
                "with the sender's pattern of that case, and the rest of its buffer with the poison it "
                "held before), over the cases and rounds:", "",
                "| benchmark | program | checks | failed | mismatches |", "|---|---|---|---|---|"]
        grouped = defaultdict(list)
        for c in checks:
            grouped[(c.get("bench"), c["impl"])].append(c)
        for (bench, impl), group in sorted(grouped.items(), key=lambda kv: (bench_order(kv[0][0]), kv[0][1])):
            bad = [c for c in group if check_failed(c)]
            mismatches = sum(whole(c.get("mismatches"), 0) for c in group)
            out.append(f"| {bench} | {impl} | {len(group)} | {len(bad)} | {mismatches} |")
        out.append("")

    # bandwidth as ratio matrices: one per (bench, scope), sizes down, grids across
    for bench in ("put_bw", "get_bw"):
        group = [c for c in cases if c.key[0] == bench]
        if not group:
            continue
        grids = sorted({c.key[3] for c in group})
        out += [f"#### {bench}: Rust ÷ CUDA bandwidth (target ≥ 1.00)", ""]
        for scope in sorted({c.key[1] for c in group}, key=lambda s: SCOPE_ORDER.get(s, 9)):
            out += [f"**{scope} scope** — ratio, with Rust / CUDA GB/s", "",
                    "| size | " + " | ".join(f"grid {g}" for g in grids) + " |",
                    "|---|" + "---|" * len(grids)]
            for size in sorted({c.key[2] for c in group if c.key[1] == scope}):
                cells = []
                for g in grids:
                    c = next((c for c in group if c.key[1] == scope and c.key[2] == size and c.key[3] == g), None)
                    if c is None:
                        cells.append("–")
                        continue
                    cells.append(f"{c.verdict()} {fmt_ratio(c.ratio())} ({fmt(c.figure('rust'))} / "
                                 f"{fmt(c.figure('cuda'))})")
                out.append(f"| {human_bytes(size)} | " + " | ".join(cells) + " |")
            out.append("")

    lat = sorted((c for c in cases if not c.higher_is_better), key=sort_key)
    if lat:
        out += ["#### Latencies: Rust ÷ CUDA (target ≤ 1.00)", "",
                "| benchmark | scope | bytes | Rust µs | CUDA µs | Rust ÷ CUDA | Rust spread | CUDA spread | |",
                "|---|---|---|---|---|---|---|---|---|"]
        for c in lat:
            r = c.ratio()
            out.append(f"| {c.key[0]} | {c.key[1]} | {human_bytes(c.key[2])} | {fmt(c.figure('rust'), 4)} | "
                       f"{fmt(c.figure('cuda'), 4)} | {fmt_ratio(r)} | {pct(c.spread('rust'))} | "
                       f"{pct(c.spread('cuda'))} | {c.verdict()} |")
        out.append("")
    if skips:
        out += ["#### Cases that did not run", "", "| job | program | round | case | reason |", "|---|---|---|---|---|"]
        for s in skips:
            case = " ".join(f"{k}={s[k]}" for k in ("bench", "scope", "bytes", "grid", "program") if k in s)
            out.append(f"| {s.get('job', '–')} | {s['impl']} | {s.get('round', '–')} | {case} | "
                       f"{s.get('reason', '').replace('|', '/')} |")
        out.append("")
    for image in images:
        name = os.path.basename(image)
        out += [f"![{name}]({name})", ""]
    return out


def micro_appendix(cases, rounds):
    columns = [f"{impl} r{k}" for impl in ("Rust", "CUDA") for k in range(1, rounds + 1)]
    out = ["## Appendix: every micro-benchmark figure, every round", "",
           "| PEs | benchmark | scope | bytes | grid | unit | " + " | ".join(columns) +
           " | Rust ÷ CUDA | Rust spread | CUDA spread | |",
           "|---|---|---|---|---|---|" + "---|" * len(columns) + "---|---|---|---|"]
    for c in sorted(cases.values(), key=sort_key):
        r = c.ratio()
        values = [fmt(c.values[impl].get(k), 5) for impl in IMPLS for k in range(1, rounds + 1)]
        out.append(f"| {c.key[4]} | {c.key[0]} | {c.key[1]} | {c.key[2]} | {c.key[3]} | {c.unit} | "
                   + " | ".join(values) +
                   f" | {fmt_ratio(r)} | {pct(c.spread('rust'))} | {pct(c.spread('cuda'))} | "
                   f"{c.verdict()} |")
    out.append("")
    return out


STATUS_WORDS = {"budget": "not run (time budget)", "skipped": "not run (timed out before)",
                "missing": "not built", "124": "timed out", "137": "timed out"}


def why_missing(jobs, name, impl, pes):
    """Why runs of job `name` by `impl` at `pes` PEs left no figure: their statuses, in words."""
    statuses = []
    for j in jobs:
        if j.get("name") == name and j.get("run_impl") == impl and j["pes_n"] == pes:
            status = j.get("status")
            word = STATUS_WORDS.get(status, f"exit {status}")
            if word not in statuses:
                statuses.append(word)
    return ", ".join(statuses) or "not run"


def jacobi_section(pes, timing, rows, checks, na, t1, jobs, failed):
    """The Jacobi part of one PE count's section."""
    out = ["### Jacobi", ""]
    keys = sorted((k for k in timing if k[1] == pes), key=jacobi_order)
    check_keys = sorted((k for k in checks if k[1] == pes), key=jacobi_order)
    if not keys and not check_keys:
        out += ["No Jacobi results at this PE count.", ""]
    any_run = next((rec for k in keys for rounds in timing[k].values() for rec in rounds.values()), None)
    if any_run:
        out += [f"Grid {any_run.get('nx')} × {any_run.get('ny')}, {any_run.get('iters')} iterations, "
                f"norm every {any_run.get('norm_every')} (both programs); device copy rate "
                f"{fmt(number(any_run.get('copy_gbps')))} GB/s.", ""]
    if keys:
        out += ["| variant | Rust ms/iter | CUDA ms/iter | Rust ÷ CUDA time | Rust GB/s | CUDA GB/s | "
                "floor fraction R / C | T1 ÷ Tp (R / C) | norm R / C | registers, blocks per SM R / C | "
                "rounds R / C | Rust spread | CUDA spread | |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        missing, failures = [], []
        for key in keys:
            row = rows[key]
            for impl in IMPLS:
                if row.seconds(impl) is None and not (impl == "rust" and only_cuda(key[0])):
                    missing.append(f"{key[0]}, {impl}: {why_missing(jobs, 'jacobi-' + key[0], impl, pes)}")
            if row.failed:
                failures.append(f"{key[0]}: " + "; ".join(row.problems))
            fig = row.figures
            speed = [fmt(t1 / fig[i]["s"], 3) if t1 and fig[i]["s"] else "–" for i in IMPLS]
            rs, cs = row.seconds("rust"), row.seconds("cuda")
            out.append(
                f"| {key[0]} | {fmt(rs and rs * 1e3, 4)} | {fmt(cs and cs * 1e3, 4)} | {fmt_ratio(row.ratio)} | "
                f"{fmt(fig['rust']['gbps'])} | {fmt(fig['cuda']['gbps'])} | "
                f"{fmt(fig['rust']['floor'], 3)} / {fmt(fig['cuda']['floor'], 3)} | {speed[0]} / {speed[1]} | "
                f"{fig['rust']['norm'] or '–'} / {fig['cuda']['norm'] or '–'} | "
                f"{fig['rust']['occupancy']} / {fig['cuda']['occupancy']} | "
                f"{fig['rust']['rounds']} / {fig['cuda']['rounds']} | {pct(fig['rust']['spread'])} | "
                f"{pct(fig['cuda']['spread'])} | {row.verdict()} |")
        out += ["", "Registers, blocks per SM: the stencil kernel's registers per thread and its resident blocks "
                "of the run's size per multiprocessor, as the driver loaded it (the persistent variant's "
                "cooperative grid is those blocks times the multiprocessors, shared among the GPU's PEs).", ""]
        if missing:
            out += ["No figure: " + "; ".join(missing) + ".", ""]
        if failures:
            out += ["Failed: " + " · ".join(failures) + ".", ""]
        band = rows[keys[0]].band
        out += [f"Noise band of the Jacobi timings at {pes_label(pes)} (90th percentile of the spreads): {pct(band)}."
                + (" Above 3 %: not conclusive." if band is not None and band > TOLERANCE else "")
                + (" (One round: no band.)" if band is None else ""), ""]
        if t1:
            out += [f"T1 (CUDA single-GPU code, one PE): {fmt(t1 * 1e3, 4)} ms per iteration. T1 ÷ Tp compares "
                    "each variant with it (the ideal is the number of GPUs the PEs run on: 1.0 when they share "
                    "one).", ""]
    for n in na:
        out += [f"- {n.get('variant', n.get('bench'))}: n/a ({n.get('reason')})"]
    if na:
        out.append("")
    if check_keys:
        out += ["Checks (`--check`, small grid):", "", "| variant | Rust | CUDA | |", "|---|---|---|---|"]
        for key in check_keys:
            per = checks[key]
            name = check_job(key[0])
            cell = {i: ", ".join(r.get("check", "?") for r in per.get(i, {}).values()) for i in IMPLS}
            for i in IMPLS:
                if not cell[i]:
                    cell[i] = "–" if (i == "rust" and only_cuda(key[0])) else why_missing(jobs, name, i, pes)
            problems = jacobi_check_problems(key, per, failed)
            mark = "FAILED: " + "; ".join(problems) if problems else "✓"
            out.append(f"| {key[0]} | {cell['rust']} | {cell['cuda']} | {mark} |")
        out.append("")
    return out


def summary_markdown(cases, rows, skips, pes_list, jacobi_checks, failed):
    out = ["## Summary", ""]
    if not pes_list:
        return out + ["No results.", ""]
    header = "| | " + " | ".join(pes_label(p) for p in pes_list) + " |"
    rule = "|---|" + "---|" * len(pes_list)
    micro = defaultdict(int)  # family × PE count cells by outcome
    if cases:
        out += ["Micro-benchmarks, per family and PE count: verdict (✓ · ≈ · ✗ · failed, of every case), "
                "worst Rust ÷ CUDA ratio, noise band. PASS: every case ✓; NEAR: none ✗ or failed, some ≈; "
                "FAIL: some ✗ or failed. ⚠: noise band above 3 %, the verdict is not conclusive.",
                "", header.replace("| |", "| benchmark (target) |", 1), rule]
        summaries = {p: {s["bench"]: s for s in family_summary([c for c in cases.values() if c.pes == p])}
                     for p in pes_list}
        benches = sorted({b for rows_ in summaries.values() for b in rows_}, key=bench_order)
        for bench in benches:
            cells, target = [], ""
            for p in pes_list:
                s = summaries[p].get(bench)
                if s is None:
                    skipped = next((k for k in skips if k.get("bench") == bench and k["pes_n"] == p), None)
                    if skipped:
                        cells.append(f"not run ({skipped.get('reason')})")
                    else:
                        micro["FAIL"] += 1
                        cells.append("FAIL: no case")
                    continue
                target = s["target"]
                micro[s["outcome"]] += 1
                warn = " ⚠" if s["band"] is not None and s["band"] > TOLERANCE else ""
                band = "one round, no band" if s["band"] is None else f"±{pct(s['band'])}"
                cells.append(f"{s['outcome']} ({s['ok']} · {s['near']} · {s['bad']} · {s['failed']} of "
                             f"{s['cases']}) · worst {fmt_ratio(s['worst'])} · {band}{warn}")
            out.append(f"| {bench} ({target}) | " + " | ".join(cells) + " |")
        out.append("")
    jacobi = defaultdict(int)  # variant × PE count cells by mark
    variants = sorted({v for v, _ in rows if v != "single"},
                      key=lambda v: JACOBI_ORDER.index(v) if v in JACOBI_ORDER else 99)
    if variants:
        out += ["Jacobi, per variant and PE count: Rust ÷ CUDA time per iteration (target ≤ 1.00; ✓ at "
                "target outside the noise band), with Rust / CUDA ms per iteration (medians over the rounds).",
                "", header.replace("| |", "| variant |", 1), rule]
        for variant in variants:
            cells = []
            for p in pes_list:
                row = rows.get((variant, p))
                if row is None:
                    cells.append("–")
                    continue
                rs, cs = row.seconds("rust"), row.seconds("cuda")
                if row.failed:
                    jacobi["FAILED"] += 1
                    cells.append("FAILED: " + "; ".join(row.problems))
                elif only_cuda(variant):
                    cells.append(f"CUDA only: {fmt(cs and cs * 1e3, 4)} ms")
                else:
                    jacobi[row.verdict()] += 1
                    cells.append(f"{row.verdict()} {fmt_ratio(row.ratio)} "
                                 f"({fmt(rs * 1e3, 4)} / {fmt(cs * 1e3, 4)} ms)")
            out.append(f"| {variant} | " + " | ".join(cells) + " |")
        out.append("")
    failed_checks = [key for key, per in jacobi_checks.items() if jacobi_check_problems(key, per, failed)]
    micro_all = sum(micro.values())
    jacobi_all = sum(jacobi.values())
    out += [f"At target: micro-benchmarks, {micro['PASS']} of {micro_all} family × PE count cells pass "
            f"({micro['NEAR']} near, {micro['FAIL']} fail); Jacobi, Rust ÷ CUDA time ✓ in {jacobi['✓']} of "
            f"{jacobi_all} variant × PE count cells ({jacobi['≈']} ≈, {jacobi['✗']} ✗, "
            f"{jacobi['FAILED']} failed); "
            f"Jacobi checks: {len(jacobi_checks) - len(failed_checks)} of {len(jacobi_checks)} pass.", ""]
    if failed:
        out += [f"Runs that did not exit 0: {len(failed)}: " + ", ".join(
            f"{job} [{impl} {pes_label(pes)} r{round_}] = {status}"
            for (job, impl, round_, pes), status in sorted(failed.items(), key=str)) + ".", ""]
    return out


def jobs_markdown(jobs):
    out = ["## Appendix: runs", "", "In the order they ran.", "",
           "| run | PEs | MPS | program | round | exit status | seconds |", "|---|---|---|---|---|---|---|"]
    for j in jobs:
        status = j.get("status")
        shown = {"0": "0", "124": "124 (timed out)", "137": "137 (killed after timing out)",
                 "budget": "skipped (time budget)", "skipped": "skipped (timed out before)",
                 "missing": "not run (program not built)"}.get(status, status)
        pes = j["pes_n"] if j["pes_n"] is not None else "–"
        out.append(f"| {j.get('name')} | {pes} | {j.get('mps', '–')} | {j.get('run_impl')} | {j.get('round')} | "
                   f"{shown} | {j.get('seconds')} |")
    out.append("")
    return out


def method(machine, rounds):
    """The method section, with the run's PE counts, rounds and arguments from `machine`."""
    with open(METHOD, encoding="utf-8") as f:
        template = string.Template(f.read())
    return template.substitute(
        pes=machine.get("pes", "–"),
        micro_args=machine.get("micro_args") or "the programs' defaults",
        collective_args=machine.get("collective_args") or "none",
        jacobi_args=machine.get("jacobi_args", "–"),
        rounds=rounds,
        jacobi_rounds=machine.get("jacobi_rounds", str(rounds)),
    )


def header(run):
    machine, pes_list, rounds = run.machine, run.pes_list, run.rounds
    lines = ["# nvshmem-rs benchmarks: Rust kernels vs CUDA C++ kernels on NVSHMEM", ""]
    lines += [f"- date: {machine.get('date', '–')}",
              f"- machine: {machine.get('gpu', '–')}, driver {machine.get('driver', '–')}, "
              f"{machine.get('gpus', '?')} GPU(s), {machine.get('cpus', '?')} CPUs",
              f"- NVSHMEM: {machine.get('nvshmem', '–')}",
              f"- nvcc: {machine.get('nvcc', '–')}",
              f"- commit: {machine.get('commit', '–')}",
              f"- PE counts: {', '.join(pes_label(p) for p in pes_list) or '–'}; rounds: "
              f"{machine.get('rounds', rounds)} (Jacobi timings: "
              f"{machine.get('jacobi_rounds', machine.get('rounds', rounds))})"]
    for p in pes_list:
        if p is not None and f"pes-{p}" in machine:
            lines.append(f"  - {pes_label(p)}: {machine[f'pes-{p}']}")
    lines += [f"- runs: {len(run.jobs)}: {len(run.failed_jobs())} did not exit 0, {len(run.budget_jobs())} skipped "
              f"(time budget {machine.get('budget', '?')} s), {len(run.hung_jobs())} skipped (timed out before); "
              f"{machine.get('elapsed', '?')} s in all",
              ""]
    return lines


def document(run, micro_images, jacobi_images):
    """The whole report of `run` (an analysis.Analysis) as lines, with the plots' images."""
    machine = run.machine
    lines = header(run)
    lines += summary_markdown(run.cases, run.rows, run.skips, run.pes_list, run.jacobi_checks, run.failed)
    lines += method(machine, machine.get("rounds", run.rounds)).splitlines() + [""]
    for p in run.pes_list:
        where = machine.get(f"pes-{p}")
        lines += [f"## {pes_label(p)}" + (f" ({where})" if where else ""), ""]
        lines += micro_section([c for c in run.cases.values() if c.pes == p],
                               [c for c in run.checks if c["pes_n"] == p],
                               [s for s in run.skips if s["pes_n"] == p], micro_images.get(p, []))
        lines += jacobi_section(p, run.timing, run.rows, run.jacobi_checks, [n for n in run.na if n["pes_n"] == p],
                                run.t1, run.jobs, run.failed)
    if jacobi_images:
        lines += ["## Jacobi at every PE count", ""]
        lines += [f"![{os.path.basename(i)}]({os.path.basename(i)})" for i in jacobi_images] + [""]
    lines += micro_appendix(run.cases, run.rounds) if run.cases else []
    lines += jobs_markdown(run.jobs)
    return lines


def console(run, path, images):
    """The short summary the harness prints last, as lines: where the report went, then per PE count
    each family's and Jacobi row's verdict, then the runs that were skipped or failed."""
    lines = [f"report: {path}" + "".join(f", {os.path.basename(i)}" for i in images)]
    for p in run.pes_list:
        lines.append(f"  {pes_label(p)}:")
        for s in family_summary([c for c in run.cases.values() if c.pes == p]):
            lines.append(f"    {s['bench']:16s} {s['compared']:3d} compared, Rust÷CUDA geo-mean "
                         f"{fmt_ratio(s['geomean']):>6s} (target {s['target']}), worst {fmt_ratio(s['worst']):>6s}, "
                         f"noise band {pct(s['band']):>7s}: {s['ok']} ✓ {s['near']} ≈ {s['bad']} ✗ "
                         f"{s['failed']} failed of {s['cases']} → {s['verdict']}")
        for key in sorted((k for k in run.timing if k[1] == p), key=jacobi_order):
            row = run.rows[key]
            rs, cs = row.seconds("rust"), row.seconds("cuda")
            lines.append(f"    jacobi {key[0]:11s}: Rust {fmt(rs and rs * 1e3, 4)} ms, CUDA "
                         f"{fmt(cs and cs * 1e3, 4)} ms, Rust÷CUDA {fmt_ratio(row.ratio)} {row.verdict()}")
        for key in sorted((k for k in run.jacobi_checks if k[1] == p), key=jacobi_order):
            per = run.jacobi_checks[key]
            lines.append(f"    jacobi check {key[0]:11s}: " + ", ".join(
                f"{i} {r.get('check')}" for i in IMPLS for r in per.get(i, {}).values()))
    budget_jobs, hung_jobs, failed_jobs = run.budget_jobs(), run.hung_jobs(), run.failed_jobs()
    if budget_jobs:
        lines.append(f"  {len(budget_jobs)} run(s) skipped: the harness's time budget was spent (BENCH_BUDGET_S)")
    if hung_jobs:
        lines.append(f"  {len(hung_jobs)} run(s) skipped: the same program had run out of time before")
    if failed_jobs:
        lines.append(f"  {len(failed_jobs)} run(s) did not exit 0: "
                     + ", ".join(f"{j.get('name')}[{j.get('run_impl')} {pes_label(j['pes_n'])} r{j.get('round')}]="
                                 f"{j.get('status')}" for j in failed_jobs))
    return lines
