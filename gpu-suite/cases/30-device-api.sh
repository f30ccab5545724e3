# The device API's GPU tests (gpu-suite/tests/tests/gpu_device_api/, a module per family, so named
# FAMILY::TEST) at 2 and 4 PEs on one GPU, each test in its own job (device_api_tests in
# gpu-suite/run.sh). By the test's own name:
# - full_mpg_*: team splits, team barriers, collectives and on-stream operations need NVSHMEM's full
#   multi-PE-per-GPU mode, so they run in the MPS pass only, with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
#   = 100 / PEs in every PE's environment (it is read per client process);
# - trap_*: the debugging timeouts; each starts its own job of DEVICE_API_TRAP_PES PEs and passes when
#   that job fails promptly with the device's message. Without MPS only: a trapping kernel must not
#   take down the MPS server the later cases share;
# - the others (RMA, signals, waits and tests, atomics, barriers over all PEs): in both passes.
# The first test of a pass JIT-compiles the kernels (tens of seconds for the team kernels), hence the
# longer limits.
# Both test binaries: gpu_device_api, and gpu_device_api_nvshmem_only, the same tests (built with the
# tests' `nvshmem-only` feature) on kernels built with nvshmem-gpu's load/store path off. The second
# runs in the MPS pass only: comparing the two paths' results needs one pass, and without MPS the
# PEs time-slice, which makes the pass several minutes longer.
device_api_binaries=gpu_device_api
[[ $MPS == on ]] && device_api_binaries+=" gpu_device_api_nvshmem_only"
for binary in $device_api_binaries; do
    device_api_tests "$binary" 2 4
done
