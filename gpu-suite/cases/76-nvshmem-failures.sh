# NVSHMEM's own failures end the job with their cause (MPS-off pass only):
# - with P2P off and no remote transport, NVSHMEM bootstraps but cannot reach the other PE; its init
#   still returns success, and the host's check of nvshmemx_init_status must say so (exit 1);
# - with P2P off and UCX as the transport, the ring's atomics reach NVSHMEM's proxy, which needs
#   GDRCopy for them, prints "aborting due to error in process_channel_dma" and calls exit, which
#   hangs in the exit-time teardown; the launcher must see that line, end the PE 2 s later and the
#   job with status 255, and its report quote the line ('after NVSHMEM aborted: "…aborting due to
#   error in process_channel_dma"', the same words whether the PE exited by itself or not).
[[ $MPS == off ]] || return 0
run_expect_text "ring with P2P off and no transport: init names the cause" 2 1 8 \
    "did not finish initialising" \
    env NVSHMEM_DISABLE_P2P=1 NVSHMEM_REMOTE_TRANSPORT=none \
    $DIST/nvshmemrun -n 2 --pes-per-gpu 2 --timeout 50 $DIST/ring
run_expect_text "ring with P2P off over UCX: NVSHMEM's abort ends the job" 2 255 10 \
    "after NVSHMEM aborted: " \
    env NVSHMEM_DISABLE_P2P=1 NVSHMEM_REMOTE_TRANSPORT=ucx \
    $DIST/nvshmemrun -n 2 --pes-per-gpu 2 --timeout 50 $DIST/ring
