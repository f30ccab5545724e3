# CUDA graphs (--graph K): the Jacobi variants whose iterations are launches and on-stream NVSHMEM
# operations, captured into two graphs of K iterations and replayed in turn. Every run has --check:
# each cell must equal the CPU's exactly, so a replay that repeats or drops work, or reads a grid of
# the wrong parity, fails. One PE only: NVSHMEM 3.4.5's on-stream barrier between PEs refuses stream
# capture and ends the process, so the runners refuse --graph on more PEs (a usage error, checked
# here with its message). MPS off: small odd-sized problems with K = 1 and K = 10, the refusals, and
# 16384 x 16384 with the plain loop beside --graph 10 (their "µs per iteration" lines, no target).
# shellcheck disable=SC2046,SC2086 # $DIST and the launcher prefix are split on purpose, as elsewhere
[[ $MPS == off ]] || return 0
graphs_jacobi_variants="put-block p"
graphs_grid_variants="grid-pack grid-p"
graphs_on() { echo "$DIST/nvshmemrun -n $1 --pes-per-gpu $1 --timeout $2"; }
# K, then the --iters and --norm-every that fit it.
graphs_shapes=("1 --iters 30 --norm-every 1" "10 --iters 30 --norm-every 5")
for shape in "${graphs_shapes[@]}"; do
    for variant in $graphs_jacobi_variants; do
        run "jacobi $variant --graph $shape, CPU check" 1 60 $(graphs_on 1 50) \
            $DIST/jacobi --variant $variant --nx 259 --ny 251 --check --graph $shape
    done
    for variant in $graphs_grid_variants; do
        run "jacobi2d-grid $variant --graph $shape, CPU check" 1 60 $(graphs_on 1 50) \
            $DIST/jacobi2d-grid --variant $variant --nx 251 --ny 259 --check --graph $shape
    done
done
run_expect_text "jacobi signal --graph: a usage error" 1 2 30 "cannot capture --variant signal" \
    $(graphs_on 1 25) $DIST/jacobi --variant signal --iters 30 --graph 10 --norm-every 5
run_expect_text "jacobi put-block --graph on 2 PEs: a usage error" 2 2 30 "needs one PE" \
    $(graphs_on 2 25) $DIST/jacobi --variant put-block --iters 30 --graph 10 --norm-every 5
run_expect_text "jacobi2d-grid grid-pack --graph on 2 PEs: a usage error" 2 2 30 "needs one PE" \
    $(graphs_on 2 25) $DIST/jacobi2d-grid --variant grid-pack --iters 30 --graph 10 --norm-every 5
graphs_big=(--nx 16384 --ny 16384 --iters 200 --norm-every 10)
for variant in $graphs_jacobi_variants; do
    for graph in "" "--graph 10"; do
        run "jacobi $variant $graph, 16384^2" 1 120 $(graphs_on 1 110) $DIST/jacobi \
            --variant $variant "${graphs_big[@]}" $graph --check
    done
done
