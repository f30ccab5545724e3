//! Compiles the device-API test kernels (`kernels/`: one kernel per family; `teams-kernels/`: teams
//! and collectives) to PTX twice: with `nvshmem-gpu`'s load/store path (`*_KERNELS_PTX`) and
//! without it (`*_KERNELS_NVSHMEM_ONLY_PTX`), so that the same tests check NVSHMEM's own path; and
//! the hostile kernel crate of the signature tests (`signature-kernels/`) once.

fn main() {
    for kernels in ["kernels", "teams-kernels"] {
        for load_store in [true, false] {
            // With the device checks in every profile: the GPU suite runs release builds, and
            // there the tests show that no valid call trips a check.
            nvshmem_builder::PtxBuilder::new(kernels)
                .checks(true)
                .load_store(load_store)
                .build()
                .unwrap_or_else(|error| panic!("building {kernels}: {error}"));
        }
    }
    nvshmem_builder::PtxBuilder::new("signature-kernels")
        .build()
        .unwrap_or_else(|error| panic!("building signature-kernels: {error}"));
}
