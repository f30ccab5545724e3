//! Valid kernels pass every check and compile on the host (where the kernels themselves vanish).

use nvshmem_gpu::kernel;

/// A parameter struct passed by value.
#[derive(Clone, Copy)]
#[repr(C)]
pub struct Params {
    pub scale: f32,
    pub stride: usize,
}

/// Pointer and scalar parameters.
///
/// # Safety
///
/// `x` and `y` point to `n` `f32`s.
#[kernel]
pub unsafe fn axpy(a: f32, x: *const f32, y: *mut f32, n: usize) {
    for i in 0..n {
        // SAFETY: the caller guarantees `n` elements behind `x` and `y`.
        unsafe { *y.add(i) += a * *x.add(i) };
    }
}

/// A struct parameter, a `mut` parameter, an unused parameter and an explicit `-> ()`.
///
/// # Safety
///
/// `out` points to at least `n * params.stride` `f32`s.
#[kernel]
#[inline(never)]
pub unsafe fn strided(out: *mut f32, mut n: usize, params: Params, _unused: u64) -> () {
    #![allow(clippy::unused_unit)]
    while n > 0 {
        n -= 1;
        // SAFETY: the caller guarantees `n * params.stride` elements behind `out`.
        unsafe { *out.add(n * params.stride) = params.scale };
    }
}

/// No parameters at all.
///
/// # Safety
///
/// Always safe; `unsafe` because every kernel is.
#[kernel]
pub unsafe fn nothing() {}

fn main() {
    // The kernels exist only when compiling for nvptx64; on the host only their checks ran.
    let _ = Params { scale: 0.5, stride: 2 };
}
