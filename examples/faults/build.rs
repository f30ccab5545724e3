//! Compiles the faults example's kernel crate to PTX (`FAULTS_KERNELS_PTX`).

fn main() {
    // With the device checks in every profile: the GPU suite runs release builds, and there the
    // `bad-pe` fault must still trap on its PE argument.
    nvshmem_builder::PtxBuilder::new("kernels")
        .checks(true)
        .build()
        .unwrap_or_else(|error| panic!("building the faults kernels: {error}"));
}
