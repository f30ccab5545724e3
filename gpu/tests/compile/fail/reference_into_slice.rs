// Safe code gets no reference into memory other PEs write: elements are read by value.
use nvshmem_gpu::SymmetricSlice;

pub fn first(data: SymmetricSlice<f32>) -> &'static f32 {
    &data[0]
}

fn main() {}
