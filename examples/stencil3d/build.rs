//! Compiles the stencil3d kernel crate to PTX (`STENCIL3D_KERNELS_PTX`).

fn main() {
    nvshmem_builder::PtxBuilder::new("kernels")
        .build()
        .unwrap_or_else(|error| panic!("building the stencil3d kernels: {error}"));
}
