// A safe kernel cannot take a raw pointer or a `SymmetricPtr`: nothing bounds what it reaches.
use nvshmem_gpu::{SymmetricPtr, kernel};

#[kernel]
pub fn scale(data: SymmetricPtr<f32>, local: *mut f32, n: usize) {
    let _ = (data, local, n);
}

fn main() {}
