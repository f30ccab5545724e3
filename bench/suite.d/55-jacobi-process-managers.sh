# The Jacobi check under real process managers (issue 7): Open MPI's mpirun and MPICH's hydra
# mpiexec, 2 and 4 PEs on one GPU, each PE's rows compared with a single-GPU run of the whole
# problem (4096² × 20 iterations: above the size where the CPU reference is also run). MPS-off only.
[[ $MPS == off ]] || return 0
jacobi_check=(--variant signal --nx 4096 --ny 4096 --iters 20 --norm-every 5 --check)
for pes in 2 4; do
    if command -v mpirun >/dev/null; then
        run "jacobi --check under Open MPI mpirun" $pes 120 \
            mpirun --allow-run-as-root --oversubscribe -np $pes -x NVSHMEM_HOME -x NVSHMEM_REMOTE_TRANSPORT \
            -x NVSHMEM_DISABLE_NVLS -x NVSHMEMRS_PES_PER_GPU=$pes $DIST/jacobi "${jacobi_check[@]}"
    else
        skip "jacobi --check under Open MPI mpirun" $pes "no mpirun on this machine"
    fi
    if [[ -x .mpich/usr/bin/mpiexec.hydra ]]; then
        run "jacobi --check under MPICH hydra mpiexec" $pes 120 \
            env PATH="$PWD/.mpich/usr/bin:$PATH" LD_LIBRARY_PATH="$PWD/.mpich/usr/lib/x86_64-linux-gnu" \
            .mpich/usr/bin/mpiexec.hydra -n $pes -genv NVSHMEMRS_PES_PER_GPU $pes $DIST/jacobi "${jacobi_check[@]}"
    else
        skip "jacobi --check under MPICH hydra mpiexec" $pes "no .mpich: run bench/fetch-mpich.sh and carry .mpich"
    fi
done
