use nvshmem_gpu::kernel;

#[kernel]
unsafe fn private(out: *mut u32) {
    let _ = out;
}

#[kernel]
pub(crate) unsafe fn crate_visible(out: *mut u32) {
    let _ = out;
}

#[kernel]
pub const unsafe fn constant() {}

#[kernel]
pub async unsafe fn asynchronous() {}

#[kernel]
pub unsafe extern "C" fn with_abi() {}

#[kernel]
pub unsafe fn patterns((a, b): (u32, u32), ref c: u32, _: u32, mut d: u32) {
    let _ = (a, b, c, d);
}

#[kernel]
#[unsafe(no_mangle)]
pub unsafe fn named() {}

fn main() {}
