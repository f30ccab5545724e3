"""The plots beside the Markdown, drawn with matplotlib where it is installed: per PE count the
bandwidths, their Rust ÷ CUDA ratios and the latencies; and the Jacobi times at every PE count."""

import sys
from collections import defaultdict

from .jacobi import JacobiRow, jacobi_order
from .micro import SCOPE_ORDER, sort_key
from .render import human_bytes, pes_label
from .stats import TOLERANCE


def pyplot():
    """(matplotlib.pyplot drawing into files, None), or (None, why not) where it cannot be had."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as error:  # noqa: BLE001 — any failure only costs the plots
        return None, error
    return plt, None


def log_log(ax, title, xlabel, ylabel):
    """Both axes of `ax` logarithmic (x in powers of two), titled and labelled, with a light grid."""
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)


def plots(prefix, cases, timing, pes_list):
    """{pes: [micro-benchmark images]} and the Jacobi images."""
    plt, error = pyplot()
    if plt is None:
        print(f"report: no plots ({error})", file=sys.stderr)
        return {}, []
    per_pes = defaultdict(list)
    for pes in pes_list:
        try:
            per_pes[pes] = micro_plots(plt, f"{prefix}-pes{pes}", [c for c in cases.values() if c.pes == pes],
                                       pes_label(pes))
        except Exception as error:  # noqa: BLE001 — a broken plot must not cost the others
            print(f"report: plots at {pes_label(pes)} failed ({error!r})", file=sys.stderr)
    jacobi = []
    try:
        jacobi = jacobi_plot(plt, prefix, timing)
    except Exception as error:  # noqa: BLE001
        print(f"report: the Jacobi plot failed ({error!r})", file=sys.stderr)
    return per_pes, jacobi


def micro_plots(plt, prefix, cases, label):
    written = []
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    bw = [c for c in cases if c.key[0] in ("put_bw", "get_bw")]
    if bw:
        scopes = sorted({c.key[1] for c in bw}, key=lambda s: SCOPE_ORDER.get(s, 9))
        benches = [b for b in ("put_bw", "get_bw") if any(c.key[0] == b for c in bw)]
        fig, axes = plt.subplots(len(benches), len(scopes), figsize=(5 * len(scopes), 4 * len(benches)),
                                 squeeze=False, sharex=True)
        grids = sorted({c.key[3] for c in bw})
        for i, bench in enumerate(benches):
            for j, scope in enumerate(scopes):
                ax = axes[i][j]
                for k, grid in enumerate(grids):
                    sel = sorted((c for c in bw if c.key[0] == bench and c.key[1] == scope and c.key[3] == grid),
                                 key=lambda c: c.key[2])
                    for impl, style in (("rust", "-o"), ("cuda", "--x")):
                        points = [(c.key[2], c.figure(impl)) for c in sel if c.figure(impl)]
                        if points:
                            ax.plot([p[0] for p in points], [p[1] for p in points], style,
                                    color=colors[k % len(colors)], label=f"{impl}, grid {grid}")
                log_log(ax, f"{bench}, {scope} scope", "bytes", "GB/s")
        axes[0][0].legend(fontsize=7)
        fig.suptitle(f"NVSHMEM bandwidth, {label}: Rust (solid) vs CUDA C++ (dashed)")
        fig.tight_layout()
        path = f"{prefix}-bandwidth.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

        # The same cases as ratios, with the ±3 % band of the target.
        fig, axes = plt.subplots(1, len(benches), figsize=(6 * len(benches), 4), squeeze=False)
        for i, bench in enumerate(benches):
            ax = axes[0][i]
            ax.axhspan(1 - TOLERANCE, 1 + TOLERANCE, color="0.9", label="±3 %")
            ax.axhline(1.0, color="0.5", linewidth=1)
            for j, scope in enumerate(scopes):
                for k, grid in enumerate(grids):
                    sel = sorted((c for c in bw if c.key[0] == bench and c.key[1] == scope and c.key[3] == grid),
                                 key=lambda c: c.key[2])
                    points = [(c.key[2], c.ratio()) for c in sel if c.ratio()]
                    if points:
                        ax.plot([p[0] for p in points], [p[1] for p in points], ["-o", "--s", ":^"][j % 3],
                                color=colors[k % len(colors)], markersize=4, label=f"{scope}, grid {grid}")
            ax.set_xscale("log", base=2)
            ax.set_title(f"{bench}, {label}: Rust ÷ CUDA (≥ 1: Rust as fast or faster)")
            ax.set_xlabel("bytes")
            ax.set_ylabel("ratio")
            ax.grid(True, alpha=0.3)
        axes[0][0].legend(fontsize=6, ncol=2)
        fig.tight_layout()
        path = f"{prefix}-bandwidth-ratio.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    lat = sorted((c for c in cases if not c.higher_is_better), key=sort_key)
    if lat:
        labels = [f"{c.key[0]} {c.key[1]} {human_bytes(c.key[2]) if c.key[2] else ''}".strip() for c in lat]
        fig, ax = plt.subplots(figsize=(9, 0.35 * len(lat) + 1.5))
        ys = list(range(len(lat)))
        ax.barh([y - 0.2 for y in ys], [c.figure("rust") or 0 for c in lat], height=0.4, label="Rust")
        ax.barh([y + 0.2 for y in ys], [c.figure("cuda") or 0 for c in lat], height=0.4, label="CUDA C++")
        ax.set_yticks(ys)
        ax.set_yticklabels(labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.set_xlabel("µs (log)")
        ax.set_title(f"NVSHMEM latencies, {label}: Rust vs CUDA C++ (lower is better)")
        ax.legend()
        ax.grid(True, axis="x", which="both", alpha=0.3)
        fig.tight_layout()
        path = f"{prefix}-latency.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def jacobi_plot(plt, prefix, timing):
    if not timing:
        return []
    keys = sorted(timing, key=jacobi_order)
    labels = [f"{v}\n{pes_label(p)}" for v, p in keys]
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(keys)), 4))
    xs = list(range(len(keys)))
    for offset, impl, label in ((-0.2, "rust", "Rust"), (0.2, "cuda", "CUDA C++")):
        heights = [1e3 * (JacobiRow(timing[k]).seconds(impl) or 0) for k in keys]
        ax.bar([x + offset for x in xs], heights, width=0.4, label=label)
    for x, (key, next_key) in enumerate(zip(keys, keys[1:])):
        if key[1] != next_key[1]:
            ax.axvline(x + 0.5, color="0.6", linewidth=1)
    ax.set_xticks(xs)
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("ms per iteration")
    ax.set_title("Jacobi: time per iteration by PE count (lower is better)")
    ax.legend()
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    path = f"{prefix}-jacobi.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [path]
