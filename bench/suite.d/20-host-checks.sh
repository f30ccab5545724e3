# The host crate's checks against real PTX (tests/gpu.rs), one PE.
gpu_tests gpu
