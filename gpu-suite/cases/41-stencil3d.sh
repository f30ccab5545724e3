# The 3-D halo exchange (examples/stencil3d): 7-point and 27-point, f32 and f64, at 1, 2, 4 and 8
# PEs on one GPU, in both passes: MPS off (the PEs time-slice) and MPS on (they run at once, so an
# exchange that races shows here).
#
# Small odd-sized grids (and a wide, flat one) checked bitwise, every owned cell, against the whole grid run on one GPU and
# on the CPU; with 8 PEs the 2 x 2 x 2 grid gives every PE faces, edges and corners; a given 4 x 1 x 1
# grid has only strided x faces. Then the planted defect: --plant stale-face leaves one face halo
# unexchanged on every PE that has a neighbour, and the check must fail, naming the PE. The timings
# against the CUDA C++ twin are bench/run-stencil3d.sh's.
# shellcheck disable=SC2046,SC2086 # the launcher prefix is split on purpose, as elsewhere
stencil3d_on() { echo "$DIST/nvshmemrun -n $1 --pes-per-gpu $1 --timeout $2"; }
stencil3d_small=(--nx 37 --ny 29 --nz 23 --iters 9 --check)

for pes in 1 2 4 8; do
    run "stencil3d 7+27-point f32+f64, 37x29x23, check" $pes 120 $(stencil3d_on $pes 110) \
        $DIST/stencil3d "${stencil3d_small[@]}"
done
# A wide, flat grid: so many columns that the sweep splits the planes into few shares, each thread
# marching through several planes (the small grids give every share one plane).
for pes in 1 2; do
    run "stencil3d 7+27-point f32+f64, 512x384x16 (threads march through planes), check" $pes 120 \
        $(stencil3d_on $pes 110) $DIST/stencil3d --nx 512 --ny 384 --nz 16 --iters 4 --check
done
run "stencil3d, grid 4x1x1 (x faces only), check" 4 120 $(stencil3d_on 4 110) \
    $DIST/stencil3d --nx 31 --ny 9 --nz 7 --iters 5 --grid 4x1x1 --check
if declare -F run_expect_text >/dev/null; then
    for pes in 2 8; do
        run_expect_text "stencil3d --plant stale-face: the check fails" $pes 1 120 "PE 1 differs:" \
            $(stencil3d_on $pes 110) $DIST/stencil3d "${stencil3d_small[@]}" --plant stale-face
    done
fi
