//! Compiles a Rust kernel crate to PTX linked with NVSHMEM's device bitcode, from build.rs.
