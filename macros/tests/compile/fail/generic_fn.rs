use nvshmem_gpu::kernel;

#[kernel]
pub unsafe fn generic<T: Copy>(out: *mut T, value: T) {
    let _ = (out, value);
}

#[kernel]
pub unsafe fn bounded(out: *mut u32)
where
    u32: Copy,
{
    let _ = out;
}

#[kernel]
pub unsafe fn impl_trait(value: impl Copy) {
    let _ = value;
}

fn main() {}
