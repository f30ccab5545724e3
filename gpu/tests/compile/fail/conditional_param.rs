// A parameter that exists on one target only: the host would pass `n` where the device kernel
// expects the slice's address, so the length would be read as an address.
use nvshmem_gpu::{SymmetricSlice, kernel};

#[kernel]
pub fn host_only_count(
    #[cfg(not(target_arch = "nvptx64"))] n: u32,
    data: SymmetricSlice<f32>,
) {
    let _ = data;
}

fn main() {}
