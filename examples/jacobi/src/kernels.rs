//! The kernels both runners' modules have (those of the `jacobi-stencil` crate, which both kernel
//! crates depend on), and how stencil kernels and meetings are launched.

use jacobi_args::Options;
use nvshmem_halo::Tiling;
use nvshmem_host::{Kernel, KernelArg, LaunchShape, Module, OnStream};
use std::error::Error;

/// The kernels both modules hold ([`jacobi_stencil::kernels`], `fault` and `floors`).
pub struct CommonKernels<'m> {
    pub(crate) initialize: Kernel<'m>,
    pub(crate) reference: Kernel<'m>,
    pub(crate) norm_sum: Kernel<'m>,
    pub(crate) norm_close: Kernel<'m>,
    pub(crate) gather: Kernel<'m>,
    pub(crate) nothing: Kernel<'m>,
    pub(crate) copy_trips: Kernel<'m>,
    /// With `--stale-halo`: the kernel that spoils a halo.
    pub(crate) stale_halo: Option<Kernel<'m>>,
    /// Where the PEs meet between kernels: a launch of one thread calling `nvshmem_barrier_all`.
    /// NVSHMEM's on-stream barrier costs several times as much between PEs sharing a GPU, and
    /// NVSHMEM 3.4.5 refuses to have it captured into a graph between PEs.
    pub(crate) barrier: Kernel<'m>,
}

impl<'m> CommonKernels<'m> {
    /// Finds them in `module`, the one that plants `--stale-halo` only when `options` ask for it.
    pub fn load(
        module: &'m Module<'m>,
        options: &Options,
    ) -> Result<CommonKernels<'m>, nvshmem_host::Error> {
        Ok(CommonKernels {
            initialize: module.kernel("initialize")?,
            reference: module.kernel("jacobi_put_block")?,
            norm_sum: module.kernel("norm_sum")?,
            norm_close: module.kernel("norm_close")?,
            gather: module.kernel("gather")?,
            nothing: module.kernel("nothing")?,
            copy_trips: module.kernel("copy_trips")?,
            stale_halo: if options.stale_halo {
                Some(module.kernel("stale_halo")?)
            } else {
                None
            },
            barrier: module.kernel("barrier_all")?,
        })
    }
}

/// The launch of a stencil kernel covering `grid` blocks of `tiling.block_x` threads.
pub fn stencil_config(tiling: Tiling, (x, y): (u32, u32)) -> LaunchShape {
    LaunchShape {
        grid: (x, y, 1),
        block: (tiling.block_x, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Launches `kernel` as one block of 32 threads (the meeting) on `on`'s stream.
///
/// # Safety
/// `args` match the kernel's parameters and the pointers are valid.
pub(crate) unsafe fn launch_one(
    on: OnStream<'_>,
    kernel: &Kernel<'_>,
    args: &[&dyn KernelArg],
) -> Result<(), Box<dyn Error>> {
    // SAFETY: the caller's contract.
    unsafe { on.launch(kernel, LaunchShape::linear(1, 32), args)? };
    Ok(())
}
