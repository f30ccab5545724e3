use nvshmem_gpu::kernel;

#[kernel(name = "other")]
pub unsafe fn fill(out: *mut u32) {
    let _ = out;
}

fn main() {}
