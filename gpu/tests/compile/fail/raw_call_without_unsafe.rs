// The raw tier stays `unsafe`: safe code cannot reach it without an `unsafe` block.
use nvshmem_gpu::{SymmetricSlice, rma};

pub fn send(dest: SymmetricSlice<f32>) {
    rma::p(dest.as_symmetric_ptr(), 1.0, 0);
}

fn main() {}
