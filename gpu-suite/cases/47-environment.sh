# NVSHMEM's environment checked before NVSHMEM reads it: a size NVSHMEM cannot parse (it used to
# warn and then crash inside NVSHMEM, exit 139) and a heap too small for the ring's buffers both end
# the job with exit 1 and a message naming the variable and what to set it to. The bound covers
# NVSHMEM start-up for the second (the first fails before NVSHMEM starts).
for pes in 1 2; do
    run_expect_text "environment: NVSHMEM_SYMMETRIC_SIZE=lots is refused" $pes 1 10 \
        'NVSHMEM_SYMMETRIC_SIZE="lots" is not a size in bytes' \
        env NVSHMEM_SYMMETRIC_SIZE=lots $DIST/nvshmemrun -n $pes --pes-per-gpu $pes --timeout 50 \
        $DIST/ring
    # The ring allocates 4 MiB (2^20 f32) per buffer; a 2 MiB heap cannot hold it.
    run_expect_text "environment: a 2M heap names the size the ring needs" $pes 1 20 \
        'NVSHMEM_SYMMETRIC_SIZE to at least 6M' \
        env NVSHMEM_SYMMETRIC_SIZE=2M $DIST/nvshmemrun -n $pes --pes-per-gpu $pes --timeout 50 \
        $DIST/ring --count 1048576
done
