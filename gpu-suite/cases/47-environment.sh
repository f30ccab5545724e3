# NVSHMEM's environment checked before NVSHMEM reads it, and the heap's bound before NVSHMEM is asked
# for more: each used to end inside NVSHMEM (a crash, exit 139 or 255), and must now end the job with
# exit 1 and a message naming the variable and what to set it to.
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
