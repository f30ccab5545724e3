# Real process managers start the same binaries (issue 7): Open MPI's mpirun (PMIx) and MPICH's
# hydra mpiexec (PMI-1, unpacked into .mpich by bench/fetch-mpich.sh). Once, in the MPS-off pass.
if [[ $MPS == off ]]; then
    if command -v mpirun >/dev/null; then
        for pes in 2 4; do
            run "ring under Open MPI mpirun" $pes 120 \
                mpirun --allow-run-as-root --oversubscribe -np $pes -x NVSHMEM_HOME -x NVSHMEM_REMOTE_TRANSPORT \
                -x NVSHMEM_DISABLE_NVLS -x NVSHMEMRS_PES_PER_GPU=$pes $DIST/ring
        done
    else
        for pes in 2 4; do skip "ring under Open MPI mpirun" $pes "no mpirun on this machine"; done
    fi
    if [[ -x .mpich/usr/bin/mpiexec.hydra ]]; then
        for pes in 2 4; do
            run "ring under MPICH hydra mpiexec" $pes 120 \
                env PATH="$PWD/.mpich/usr/bin:$PATH" LD_LIBRARY_PATH="$PWD/.mpich/usr/lib/x86_64-linux-gnu" \
                .mpich/usr/bin/mpiexec.hydra -n $pes -genv NVSHMEMRS_PES_PER_GPU $pes $DIST/ring
        done
    else
        for pes in 2 4; do skip "ring under MPICH hydra mpiexec" $pes "no .mpich: run bench/fetch-mpich.sh and carry .mpich"; done
    fi
fi
