// A transfer's two slices hold the same element type.
use nvshmem_gpu::{Pe, SymmetricSlice, Thread};

pub fn send(dest: SymmetricSlice<u32>, source: SymmetricSlice<f32>, pe: Pe) {
    Thread.put(dest, source, pe);
}

fn main() {}
