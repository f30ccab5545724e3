//! The NVSHMEM device API for Rust kernels compiled to PTX.
