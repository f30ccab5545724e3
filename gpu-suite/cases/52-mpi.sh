# nvshmem-host's init_with_mpi (gpu-suite/tests/tests/gpu_mpi.rs, the `mpi` feature) under Open
# MPI's mpirun: MPI_COMM_WORLD as one NVSHMEM job at 2 and 4 ranks, its two halves (even and odd
# ranks) as two jobs at 4 ranks, and the planted defect (NVSHMEM started on the world where the half
# was meant), which must fail with the check's message (mpirun exits with the failing test's status,
# libtest's 101).
# Once, in the MPS-off pass.
if [[ $MPS == off ]]; then
    if ! command -v mpirun >/dev/null; then
        skip "gpu_mpi (every test)" 4 "no mpirun on this machine"
    else
        expect_tests gpu_mpi
        mpi_test() { # PES TEST
            run_test "gpu_mpi $2" "$1" 120 $(mpirun_prefix "$1") \
                "$DIST"/gpu_mpi --ignored --exact "$2" --nocapture --test-threads 1
        }
        for pes in 2 4; do mpi_test $pes mpi_comm_world_is_one_nvshmem_job; done
        mpi_test 4 halves_of_mpi_comm_world_are_two_nvshmem_jobs
        run_expect_text "gpu_mpi planted_world_started_for_a_half_is_caught: the check fails" 4 101 60 \
            "NVSHMEM's PEs are the communicator's ranks" $(mpirun_prefix 4) \
            "$DIST"/gpu_mpi --ignored --exact planted_world_started_for_a_half_is_caught --nocapture --test-threads 1
    fi
fi
