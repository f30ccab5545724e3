# The host crate's checks against real PTX: examples/ring/tests/gpu_ring.rs and the typed launch's
# signature check against a hostile kernel crate (examples/device-api/tests/gpu_signatures.rs) at
# one PE, host/tests/gpu_collective_checks.rs and host/tests/gpu_host_misuse.rs at two.
gpu_tests gpu_ring
gpu_tests gpu_signatures
gpu_tests gpu_collective_checks 2
gpu_tests gpu_host_misuse 2
