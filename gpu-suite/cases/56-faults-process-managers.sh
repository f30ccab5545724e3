# Fail-fast under the real process managers: a PE killed with SIGKILL while the others wait for it
# in a device barrier must end the job within 5 s under Open MPI's mpirun and MPICH's hydra mpiexec
# too, as it does under nvshmemrun (45-faults.sh). Each manager picks its own exit status, so any
# failure counts; the bound covers NVSHMEM's start-up (~1-2 s) as in 45-faults.sh. The row's seconds
# are the measurement. MPS-off pass only (see 45-faults.sh).
[[ $MPS == off ]] || return 0
for pes in 2 4; do
    if command -v mpirun >/dev/null; then
        run_expect_text "faults kill under Open MPI mpirun: job ends" $pes '!0' 8 "" \
            $(mpirun_prefix $pes) $DIST/faults --fault kill --victim $((pes - 1))
    else
        skip "faults kill under Open MPI mpirun: job ends" $pes "no mpirun on this machine"
    fi
    if [[ -x .mpich/usr/bin/mpiexec.hydra ]]; then
        run_expect_text "faults kill under MPICH hydra mpiexec: job ends" $pes '!0' 8 "" \
            $(hydra_prefix $pes) $DIST/faults --fault kill --victim $((pes - 1))
    else
        skip "faults kill under MPICH hydra mpiexec: job ends" $pes \
            "no .mpich: run gpu-suite/fetch-mpich.sh and carry .mpich"
    fi
done
