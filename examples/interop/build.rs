//! Compiles the interop example's kernel crate to PTX (`INTEROP_KERNELS_PTX`).

fn main() {
    nvshmem_builder::PtxBuilder::new("kernels")
        .build()
        .unwrap_or_else(|error| panic!("building the interop example's kernels: {error}"));
}
