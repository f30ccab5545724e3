use nvshmem_gpu::kernel;

#[kernel]
pub unsafe fn by_reference(x: &[f32], y: &mut f32, pair: (*const u8, &u8)) {
    let _ = (x, y, pair);
}

fn main() {}
