//! Compiles the micro-benchmarks' kernel crate to PTX (`MICRO_KERNELS_PTX`).

fn main() {
    // Without the device checks in every profile: the benchmarks measure the calls themselves.
    nvshmem_builder::PtxBuilder::new("kernels")
        .checks(false)
        .build()
        .unwrap_or_else(|error| panic!("building the micro-benchmark kernels: {error}"));
}
