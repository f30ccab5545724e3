//! The panic handler for kernels: a panicking thread traps, which aborts the kernel launch with
//! `CUDA_ERROR_LAUNCH_FAILED` (an "unspecified launch failure") on the host.

#[panic_handler]
fn trap_on_panic(_info: &core::panic::PanicInfo<'_>) -> ! {
    // SAFETY: `trap` has no preconditions; it ends the kernel with an error.
    unsafe { core::arch::nvptx::trap() }
}
