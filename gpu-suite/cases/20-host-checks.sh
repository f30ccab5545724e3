# The host crate's checks against real PTX: examples/ring/tests/gpu_ring.rs and the typed launch's
# signature check against a hostile kernel crate (gpu-suite/tests/tests/gpu_signatures.rs) at one
# PE, gpu-suite/tests/tests/gpu_collective_checks.rs and gpu_host_misuse.rs beside it at two.
gpu_tests gpu_ring
gpu_tests gpu_signatures
gpu_tests gpu_collective_checks 2
gpu_tests gpu_host_misuse 2
