//! Compiles the stencil3d kernel crate to PTX (`STENCIL3D_KERNELS_PTX`).

fn main() {
    // The exchange's blocks wait on other PEs, so every PE's must be resident at once: at 64
    // registers (from 127, a few bytes spilled) twice as many fit on a multiprocessor.
    nvshmem_builder::PtxBuilder::new("kernels")
        .max_registers("exchange_f32", 64)
        .max_registers("exchange_f64", 64)
        .build()
        .unwrap_or_else(|error| panic!("building the stencil3d kernels: {error}"));
}
