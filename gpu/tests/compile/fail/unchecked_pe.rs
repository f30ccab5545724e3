// A PE number that was not checked against the job's PE count is not a `Pe`.
use nvshmem_gpu::{Block, SymmetricSlice};

pub fn send(dest: SymmetricSlice<f32>, source: SymmetricSlice<f32>) {
    Block.put(dest, source, 3);
}

fn main() {}
