# NVSHMEM's environment checked before NVSHMEM reads it, and the heap's bound before NVSHMEM is asked
# for more: unchecked, each ends inside NVSHMEM (a crash, exit 139 or 255); checked, each must end the
# job with exit 1 and a message naming the variable and what to set it to.
# - a size NVSHMEM cannot parse;
# - a heap cap below one granule (NVSHMEM 3.4.5 then fails its own team set-up, reports success,
#   and crashes at the first allocation);
# - a request beyond the heap's cap: Jacobi's 16384² grid needs 1 GiB per array on one PE.
for pes in 1 2; do
    run_expect_text "environment: NVSHMEM_SYMMETRIC_SIZE=lots is refused" $pes 1 10 \
        'NVSHMEM_SYMMETRIC_SIZE="lots" is not a size in bytes' \
        env NVSHMEM_SYMMETRIC_SIZE=lots $DIST/nvshmemrun -n $pes --pes-per-gpu $pes --timeout 50 \
        $DIST/ring
    run_expect_text "environment: a heap cap below one granule is refused" $pes 1 10 \
        'set NVSHMEM_MAX_MEMORY_PER_GPU to at least 512M' \
        env NVSHMEM_MAX_MEMORY_PER_GPU=256M $DIST/nvshmemrun -n $pes --pes-per-gpu $pes --timeout 50 \
        $DIST/ring
done
run_expect_text "environment: a request beyond the heap's cap names the cap to set" 1 1 30 \
    'set NVSHMEM_MAX_MEMORY_PER_GPU to at least ' \
    env NVSHMEM_MAX_MEMORY_PER_GPU=600M $DIST/nvshmemrun -n 1 --timeout 50 \
    $DIST/jacobi --nx 16384 --ny 16384 --iters 1
# A long run's symmetric memory does not grow with --iters: 10^8 iterations with the norm after each
# asked for 1.6 GB at start (refused inside NVSHMEM) while the norm totals had a row per iteration;
# now the job must still be iterating when the launcher ends it (exit 124).
run_expect_text "environment: a run of 10^8 iterations starts (bounded norm memory)" 2 124 40 \
    'timed out after 20s' \
    $DIST/nvshmemrun -n 2 --pes-per-gpu 2 --timeout 20 \
    $DIST/jacobi --nx 4096 --ny 4096 --iters 100000000
