# The device checks' deadline (the faults kernels are built with checks): a barrier inside a branch
# that only PE 0 takes, and a wait of PE 0's for a flag nobody sets, must each trap PE 0 with a
# message naming the call, the PE and the likely cause, and end the job (PE 0 exits 4) within the
# limit set by NVSHMEMRS_DEVICE_TIMEOUT_S plus 5 s. The control: a barrier every PE reaches passes
# under the same limit. The launcher's --timeout (50 s) is far above, so a hang fails the bound.
# MPS-off pass only, as 45-faults.sh: a trap under MPS fails every later client of the server.
[[ $MPS == off ]] || return 0
limit=3
run "device timeouts: a barrier every PE reaches passes (control)" 2 60 \
    env NVSHMEMRS_DEVICE_TIMEOUT_S=$limit $DIST/nvshmemrun -n 2 --pes-per-gpu 2 --timeout 50 \
    $DIST/faults --fault none
run_expect_text "device timeouts: a barrier inside a branch traps, naming it" 2 4 $((limit + 5)) \
    "PE 0 (block 0, thread 0): nvshmem_gpu::sync::barrier_all: PE 1 (number 1 of the team's 2) has not arrived: is the call inside a branch that not every PE takes?" \
    env NVSHMEMRS_DEVICE_TIMEOUT_S=$limit $DIST/nvshmemrun -n 2 --pes-per-gpu 2 --timeout 50 \
    $DIST/faults --fault barrier-in-branch --victim 0
run_expect_text "device timeouts: a wait for a flag nobody sets traps, naming it" 2 4 $((limit + 5)) \
    "PE 0 (block 0, thread 0): nvshmem_gpu::p2p::wait_until: *" \
    env NVSHMEMRS_DEVICE_TIMEOUT_S=$limit $DIST/nvshmemrun -n 2 --pes-per-gpu 2 --timeout 50 \
    $DIST/faults --fault unset-flag --victim 0
run_expect_text "device timeouts: a bad NVSHMEMRS_DEVICE_TIMEOUT_S is refused" 2 1 10 \
    'NVSHMEMRS_DEVICE_TIMEOUT_S="soon" is not a number of seconds above 0' \
    env NVSHMEMRS_DEVICE_TIMEOUT_S=soon $DIST/nvshmemrun -n 2 --pes-per-gpu 2 --timeout 50 \
    $DIST/faults --fault none
