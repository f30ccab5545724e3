# The 3-D halo exchange (examples/stencil3d): 7-point and 27-point, f32 and f64, at 1, 2, 4 and 8
# PEs on one GPU.
#
# MPS off: small odd-sized grids checked bitwise, every owned cell, against the whole grid run on
# one GPU and on the CPU (the PEs time-slice here, so these runs are about correctness only); with
# 8 PEs the 2 x 2 x 2 grid gives every PE faces, edges and corners. A given process grid (4 x 1 x 1:
# only strided x faces) runs too. Then the planted defect: --plant stale-face leaves one face halo
# unexchanged on every PE that has a neighbour, and the check must fail naming the PE.
# MPS on: ms per iteration for 128^3, 256^3 and 512^3 (no check: the whole grid would not fit
# beside the boxes at 512^3 f64), the `result:` lines collected in the log.
# shellcheck disable=SC2046,SC2086 # the launcher prefix is split on purpose, as elsewhere
stencil3d_on() { echo "$DIST/nvshmemrun -n $1 --pes-per-gpu $1 --timeout $2"; }

if [[ $MPS == off ]]; then
    for pes in 1 2 4 8; do
        run "stencil3d 7+27-point f32+f64, 37x29x23, check" $pes 120 $(stencil3d_on $pes 110) \
            $DIST/stencil3d --nx 37 --ny 29 --nz 23 --iters 9 --check
    done
    run "stencil3d, grid 4x1x1 (x faces only), check" 4 120 $(stencil3d_on 4 110) \
        $DIST/stencil3d --nx 31 --ny 9 --nz 7 --iters 5 --grid 4x1x1 --check
    if declare -F run_expect_text >/dev/null; then
        for pes in 2 8; do
            run_expect_text "stencil3d --plant stale-face: the check fails" $pes 1 120 "PE 1 differs:" \
                $(stencil3d_on $pes 110) $DIST/stencil3d --nx 37 --ny 29 --nz 23 --iters 9 --check \
                --plant stale-face
        done
    fi
    return 0
fi

for size in 128 256 512; do
    for pes in 1 2 4 8; do
        run "stencil3d ${size}^3, timing" $pes 300 $(stencil3d_on $pes 290) \
            $DIST/stencil3d --nx $size --ny $size --nz $size --iters 20
    done
done
