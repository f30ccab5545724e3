//! Raw bindings to NVSHMEM's host library, loaded at run time.
