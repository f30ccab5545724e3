# The host crate's checks against real PTX: examples/ring/tests/gpu_ring.rs at one PE,
# host/tests/gpu_collective_checks.rs at two.
gpu_tests gpu_ring
gpu_tests gpu_collective_checks 2
