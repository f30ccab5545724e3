# NVSHMEM's own failures end the job with their cause (MPS-off pass only):
# - with P2P off and no remote transport, NVSHMEM bootstraps but cannot reach the other PE; its init
#   still returns success, and the host's check of nvshmemx_init_status must say so (exit 1);
# - with P2P off and UCX as the transport, the ring's atomics reach NVSHMEM's proxy, which needs
#   GDRCopy for them, prints "aborting due to error in process_channel_dma" and calls exit; the PE
#   must then end (status 255) instead of hanging in CUDA's and NVSHMEM's exit-time teardown, and
#   the launcher end the job.
[[ $MPS == off ]] || return 0
run_expect_text "ring with P2P off and no transport: init names the cause" 2 1 8 \
    "did not finish initialising" \
    env NVSHMEM_DISABLE_P2P=1 NVSHMEM_REMOTE_TRANSPORT=none \
    $DIST/nvshmemrun -n 2 --pes-per-gpu 2 --timeout 50 $DIST/ring
run_expect_text "ring with P2P off over UCX: NVSHMEM's abort ends the job" 2 255 10 \
    "aborting due to error" \
    env NVSHMEM_DISABLE_P2P=1 NVSHMEM_REMOTE_TRANSPORT=ucx \
    $DIST/nvshmemrun -n 2 --pes-per-gpu 2 --timeout 50 $DIST/ring
