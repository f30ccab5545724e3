//! Compiles the kernel crate in `kernels/` for the GPU, links it with NVSHMEM's device library and
//! checks the PTX with `ptxas`; `src/main.rs` embeds the PTX through the variable this sets,
//! `NVSHMEM_STARTER_KERNELS_PTX` (the kernel crate's name in capitals, `_PTX` appended).

fn main() {
    nvshmem_builder::PtxBuilder::new("kernels")
        .build()
        .unwrap_or_else(|error| panic!("building the kernels: {error}"));
}
