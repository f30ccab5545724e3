//! Compiles the ring's kernel crate to PTX (`RING_KERNELS_PTX`); the device checks of PE arguments
//! follow the profile (on in debug builds).

// ANCHOR: build
fn main() {
    nvshmem_builder::PtxBuilder::new("kernels")
        .build()
        .unwrap_or_else(|error| panic!("building the ring's kernels: {error}"));
}
// ANCHOR_END: build
