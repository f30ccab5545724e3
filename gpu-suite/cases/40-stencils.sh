# The stencils (examples/jacobi: jacobi and jacobi2d-grid): every variant at 1, 2 and 4 PEs on one GPU.
#
# MPS off: small, odd-sized problems (remainder rows and columns, row padding) checked against a
# single-GPU run and the CPU (every cell equal; the interior starts non-zero, so every halo carries
# data); the PEs time-slice here, so these runs are about correctness only. Then the check must
# catch a planted defect: --stale-halo leaves one halo (a row in jacobi, a column in jacobi2d-grid)
# one iteration late, and the run must fail, naming the PE whose cells differ.
# MPS on: the timing runs, at a size that fills the GPU (16384 x 16384, 200 iterations, norm every
# 10), each with --check against a single-GPU run of the whole problem, then a few block shapes of
# put-block on one PE (timing only). Their `result:` lines are collected into tables printed at the
# end and written to $STENCIL_TABLE (default bench/results/stencils.md, replaced each run). Each
# jacobi run also measures the GPU's device-to-device copy rate, which gives the memory floor
# (`floor` column; >= 90 % expected on one PE).
# shellcheck disable=SC2046,SC2086 # $DIST and the launcher prefix are split on purpose, as elsewhere
stencil_jacobi_variants="put-block p signal overlap persistent"
stencil_grid_variants="grid-pack grid-p"
# stencil_on PES SECONDS: the launcher's command line for PES PEs on one GPU with a time limit
# (word-split on purpose: `run` hands its command to `timeout`, which cannot call shell functions).
stencil_on() { echo "$DIST/nvshmemrun -n $1 --pes-per-gpu $1 --timeout $2"; }

if [[ $MPS == off ]]; then
    for pes in 1 2 4; do
        for variant in $stencil_jacobi_variants; do
            run "jacobi $variant, CPU check" $pes 60 $(stencil_on $pes 50) $DIST/jacobi \
                --variant $variant --nx 259 --ny 251 --iters 30 --norm-every 7 --check
        done
        for variant in $stencil_grid_variants; do
            run "jacobi2d-grid $variant, CPU check" $pes 60 $(stencil_on $pes 50) $DIST/jacobi2d-grid \
                --variant $variant --nx 251 --ny 259 --iters 30 --norm-every 7 --check
        done
    done
    run "jacobi overlap, 64 x 3 blocks, CPU check" 4 60 $(stencil_on 4 50) $DIST/jacobi \
        --variant overlap --nx 300 --ny 133 --iters 21 --norm-every 5 --block-x 64 --rows-per-thread 3 --check
    run "jacobi2d-grid grid-pack, 4 x 1 grid, CPU check" 4 60 $(stencil_on 4 50) $DIST/jacobi2d-grid \
        --variant grid-pack --grid 4x1 --nx 130 --ny 70 --iters 12 --check
    if declare -F run_expect >/dev/null; then
        run_expect "jacobi: more PEs than rows is a usage error" 4 2 30 \
            $(stencil_on 4 25) $DIST/jacobi --nx 64 --ny 5 --iters 1
    fi
    if declare -F run_expect_text >/dev/null; then
        for variant in put-block signal; do
            run_expect_text "jacobi $variant --stale-halo: the check fails" 2 1 60 "PE 1 differs:" \
                $(stencil_on 2 50) $DIST/jacobi --variant $variant --nx 259 --ny 251 --iters 30 \
                --norm-every 7 --check --stale-halo
        done
        for variant in $stencil_grid_variants; do
            run_expect_text "jacobi2d-grid $variant --stale-halo (column): the check fails" 2 1 60 \
                "PE 1 differs:" $(stencil_on 2 50) $DIST/jacobi2d-grid --variant $variant --grid 2x1 \
                --nx 251 --ny 259 --iters 30 --norm-every 7 --check --stale-halo
        done
    fi
    return 0
fi

stencil_results=$(mktemp)
stencil_shapes=$(mktemp)
stencil_big=(--nx 16384 --ny 16384 --iters 200 --norm-every 10)
for variant in $stencil_jacobi_variants; do
    for pes in 1 2 4; do
        run "jacobi $variant, 16384^2" $pes 120 $(stencil_on $pes 110) $DIST/jacobi \
            --variant $variant "${stencil_big[@]}" --check --append-result "$stencil_results"
    done
done
for variant in $stencil_grid_variants; do
    for pes in 1 2 4; do
        run "jacobi2d-grid $variant, 16384^2" $pes 120 $(stencil_on $pes 110) $DIST/jacobi2d-grid \
            --variant $variant "${stencil_big[@]}" --check --append-result "$stencil_results"
    done
done
for shape in "128 4" "128 16" "256 8" "64 8"; do
    read -r stencil_block_x stencil_rows <<<"$shape"
    echo "shape: $stencil_block_x threads x 4 columns x $stencil_rows rows" >>"$stencil_shapes"
    run "jacobi put-block, 16384^2, $stencil_block_x threads x $stencil_rows rows" 1 60 \
        $(stencil_on 1 50) $DIST/jacobi --variant put-block "${stencil_big[@]}" \
        --block-x $stencil_block_x --rows-per-thread $stencil_rows --append-result "$stencil_shapes"
done

# stencil_rows FILE: the table rows of the `result:` lines in FILE (a `shape:` line names the
# block shape of the results after it).
stencil_rows() {
    awk '$1 == "shape:" { shape = substr($0, 8); next }
    $1 == "result:" {
        for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
        printf "| %s | %s | %s x %s | %s | %s | %.3f | %s | %s | %.1f %% | %s | %s |\n",
            (shape == "" ? v["variant"] : v["variant"] ", " shape), v["pes"], v["nx"], v["ny"],
            v["iters"], v["norm_every"], v["seconds_per_iter"] * 1000, v["gbps"], v["copy_gbps"],
            v["floor_fraction"] * 100, v["check"], v["norm"]
    }' "$1"
}
STENCIL_TABLE=${STENCIL_TABLE:-bench/results/stencils.md}
{
    echo "# Stencils: 2-D Jacobi, f32, on one GPU (MPS on)"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- machine: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1)"
    echo "- commit: $(paste -sd' ' $DIST/COMMIT)"
    echo "- bytes per iteration: 2 · nx · ny · 4 (every cell read and written once); floor: that at the"
    echo "  device-to-device copy rate measured in the same run (a copy of n bytes moves 2n bytes)"
    echo "- default blocks: 128 threads x 4 columns x 8 rows"
    echo
    echo "| variant | PEs | nx x ny | iters | norm every | ms / iter | GB/s | copy GB/s | floor | check | norm |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    stencil_rows "$stencil_results"
    echo
    echo "Other block shapes, put-block on one PE (timing only):"
    echo
    echo "| variant | PEs | nx x ny | iters | norm every | ms / iter | GB/s | copy GB/s | floor | check | norm |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    stencil_rows "$stencil_shapes"
} | tee "$STENCIL_TABLE"
rm -f "$stencil_results" "$stencil_shapes"
