//! Compiles the two Jacobi kernel crates to PTX: `kernels/` for `jacobi` (`JACOBI_KERNELS_PTX`)
//! and `grid-kernels/` for `jacobi2d-grid` (`JACOBI2D_GRID_KERNELS_PTX`), which shares its stencil.

fn main() {
    // The persistent kernel needs 88 registers, which fits 5 blocks of 128 threads per
    // multiprocessor (the CUDA C++ kernel: 60, 8 blocks). At 72 it spills a few bytes and fits 7
    // blocks, which keeps it level with the CUDA C++ kernel at every PE count; at 64 the spills
    // cost more than the extra blocks gain.
    nvshmem_builder::PtxBuilder::new("kernels")
        .max_registers("jacobi_persistent", 72)
        .build()
        .unwrap_or_else(|error| panic!("building the jacobi kernels: {error}"));
    nvshmem_builder::PtxBuilder::new("grid-kernels")
        .build()
        .unwrap_or_else(|error| panic!("building the jacobi2d-grid kernels: {error}"));
}
