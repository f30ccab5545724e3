// A pointer (host, private or symmetric without a length) is not a symmetric slice.
use nvshmem_gpu::{Pe, SymmetricSlice, Thread};

pub fn send(dest: SymmetricSlice<f32>, local: *const f32, pe: Pe) {
    Thread.put(dest, local, pe);
}

fn main() {}
