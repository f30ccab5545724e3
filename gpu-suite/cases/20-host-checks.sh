# The host crate's checks against real PTX: tests/gpu.rs at one PE, tests/gpu_collective_checks.rs at two.
gpu_tests gpu
gpu_tests gpu_collective_checks 2
