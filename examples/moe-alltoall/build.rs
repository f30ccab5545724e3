//! Compiles the all-to-all's kernel crate to PTX (`MOE_ALLTOALL_KERNELS_PTX`); the device checks of
//! PE arguments follow the profile (on in debug builds).

fn main() {
    nvshmem_builder::PtxBuilder::new("kernels")
        .build()
        .unwrap_or_else(|error| panic!("building the all-to-all's kernels: {error}"));
}
