use nvshmem_gpu::kernel;

pub struct NotCopy {
    pub len: usize,
}

#[kernel]
pub unsafe fn by_value(name: String, params: NotCopy, n: usize) {
    let _ = (name, params, n);
}

fn main() {}
