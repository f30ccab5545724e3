# CUDA graphs (--graph K): the Jacobi variants whose iterations are kernel launches (the PEs meeting
# in a barrier kernel, since NVSHMEM 3.4.5's on-stream barrier between PEs refuses capture), captured
# into two graphs of K iterations and replayed in turn, at 1, 2 and 4 PEs on one GPU. Every run has --check: each cell must equal the single-GPU (and CPU) run's exactly, so a
# replay that repeats or drops work, or reads a halo of the wrong parity, fails.
# MPS off: small odd-sized problems, K = 1 and K = 10; then planted defects: --stale-halo with a
# graph (the check must fail, naming PE 1), and a variant that cannot be captured (a usage error).
# MPS on: 16384 x 16384, 200 iterations, norm every 10, the plain loop beside --graph 10, so that
# the "µs per iteration" lines of the two can be compared (no target).
# shellcheck disable=SC2046,SC2086 # $DIST and the launcher prefix are split on purpose, as elsewhere
graphs_jacobi_variants="put-block p"
graphs_grid_variants="grid-pack grid-p"
graphs_on() { echo "$DIST/nvshmemrun -n $1 --pes-per-gpu $1 --timeout $2"; }
# K, then the --iters and --norm-every that fit it.
graphs_shapes=("1 --iters 30 --norm-every 1" "10 --iters 30 --norm-every 5")

if [[ $MPS == off ]]; then
    for pes in 1 2 4; do
        for shape in "${graphs_shapes[@]}"; do
            for variant in $graphs_jacobi_variants; do
                run "jacobi $variant --graph $shape, CPU check" $pes 60 $(graphs_on $pes 50) \
                    $DIST/jacobi --variant $variant --nx 259 --ny 251 --check --graph $shape
            done
            for variant in $graphs_grid_variants; do
                run "jacobi2d-grid $variant --graph $shape, CPU check" $pes 60 \
                    $(graphs_on $pes 50) $DIST/jacobi2d-grid --variant $variant --nx 251 --ny 259 \
                    --check --graph $shape
            done
        done
    done
    if declare -F run_expect_text >/dev/null; then
        run_expect_text "jacobi put-block --graph 10 --stale-halo: the check fails" 2 1 60 \
            "PE 1 differs:" $(graphs_on 2 50) $DIST/jacobi --variant put-block --nx 259 --ny 251 \
            --iters 30 --norm-every 5 --graph 10 --check --stale-halo
        run_expect_text "jacobi2d-grid grid-pack --graph 10 --stale-halo: the check fails" 2 1 60 \
            "PE 1 differs:" $(graphs_on 2 50) $DIST/jacobi2d-grid --variant grid-pack --grid 2x1 \
            --nx 251 --ny 259 --iters 30 --norm-every 5 --graph 10 --check --stale-halo
        run_expect_text "jacobi signal --graph: a usage error" 2 2 30 "cannot capture --variant signal" \
            $(graphs_on 2 25) $DIST/jacobi --variant signal --iters 30 --graph 10 --norm-every 5
    fi
    return 0
fi

graphs_big=(--nx 16384 --ny 16384 --iters 200 --norm-every 10)
for pes in 1 2 4; do
    for variant in $graphs_jacobi_variants; do
        for graph in "" "--graph 10"; do
            run "jacobi $variant $graph, 16384^2" $pes 120 $(graphs_on $pes 110) $DIST/jacobi \
                --variant $variant "${graphs_big[@]}" $graph --check
        done
    done
    for variant in $graphs_grid_variants; do
        for graph in "" "--graph 10"; do
            run "jacobi2d-grid $variant $graph, 16384^2" $pes 120 $(graphs_on $pes 110) \
                $DIST/jacobi2d-grid --variant $variant "${graphs_big[@]}" $graph --check
        done
    done
done
