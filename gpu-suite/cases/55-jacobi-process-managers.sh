# The Jacobi check under real process managers (issue 7): Open MPI's mpirun and MPICH's hydra
# mpiexec, 2 and 4 PEs on one GPU, each PE's rows compared with a single-GPU run of the whole
# problem (4096² × 20 iterations: above the size where the CPU reference is also run). MPS-off only.
[[ $MPS == off ]] || return 0
jacobi_check=(--variant signal --nx 4096 --ny 4096 --iters 20 --norm-every 5 --check)
for pes in 2 4; do
    run_under_mpirun "jacobi --check under Open MPI mpirun" $pes 120 $DIST/jacobi "${jacobi_check[@]}"
    run_under_hydra "jacobi --check under MPICH hydra mpiexec" $pes 120 $DIST/jacobi "${jacobi_check[@]}"
done
