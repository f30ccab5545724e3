//! Launching kernels: plain, and cooperative (all blocks resident at once, as kernels that wait on
//! other PEs need).

use crate::error::DriverErrorContext as _;
use crate::{Error, Kernel, KernelLaunchError, OnStream};
use cudarc::driver::CudaFunction;
use cudarc::driver::sys::CUdevice_attribute;
use nvshmem_abi::SymmetricPtr;
use std::ffi::c_void;

/// cudarc's `launch_kernel` and `launch_cooperative_kernel`.
type LaunchFn = unsafe fn(
    cudarc::driver::sys::CUfunction,
    (u32, u32, u32),
    (u32, u32, u32),
    u32,
    cudarc::driver::sys::CUstream,
    &mut [*mut c_void],
) -> Result<(), cudarc::driver::DriverError>;

/// Grid and block shape of a launch. It converts to and from cudarc's `LaunchConfig` (the typed
/// launches take either), under a name of its own so that both crates' names import side by side.
///
/// ```
/// let shape = nvshmem_host::LaunchShape::linear(4, 256);
/// assert_eq!(shape.grid, (4, 1, 1));
/// let config: cudarc::driver::LaunchConfig = shape.into();
/// assert_eq!(nvshmem_host::LaunchShape::from(config), shape);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchShape {
    /// Blocks in the grid, `(x, y, z)`.
    pub grid: (u32, u32, u32),
    /// Threads per block, `(x, y, z)`.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, in bytes.
    pub shared_mem_bytes: u32,
}

/// A configuration made for cudarc's launch builder, for this crate's launches.
impl From<cudarc::driver::LaunchConfig> for LaunchShape {
    fn from(config: cudarc::driver::LaunchConfig) -> LaunchShape {
        LaunchShape {
            grid: config.grid_dim,
            block: config.block_dim,
            shared_mem_bytes: config.shared_mem_bytes,
        }
    }
}

/// A shape for cudarc's launch builder.
impl From<LaunchShape> for cudarc::driver::LaunchConfig {
    fn from(shape: LaunchShape) -> cudarc::driver::LaunchConfig {
        cudarc::driver::LaunchConfig {
            grid_dim: shape.grid,
            block_dim: shape.block,
            shared_mem_bytes: shape.shared_mem_bytes,
        }
    }
}

impl LaunchShape {
    /// A one-dimensional launch of `blocks` blocks of `threads` threads, no dynamic shared memory.
    pub fn linear(blocks: u32, threads: u32) -> LaunchShape {
        LaunchShape {
            grid: (blocks, 1, 1),
            block: (threads, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    fn blocks(&self) -> u32 {
        self.grid.0 * self.grid.1 * self.grid.2
    }

    fn threads_per_block(&self) -> u32 {
        self.block.0 * self.block.1 * self.block.2
    }
}

/// A value that can be passed to a kernel parameter: its bytes are exactly what the kernel's
/// parameter of the corresponding type expects.
///
/// Implemented for the primitive numbers, raw pointers and [`SymmetricPtr`]. Implement it for your
/// own `#[repr(C)]` parameter structs shared with the kernel crate.
///
/// # Safety
/// The type's size, alignment and bit patterns must match the kernel's parameter type exactly, and it
/// must hold no host references (only device addresses and plain values).
///
/// ```
/// #[derive(Clone, Copy)]
/// #[repr(C)]
/// struct Extents { nx: u32, ny: u32 }
/// // SAFETY: the kernel declares the same `#[repr(C)]` struct.
/// unsafe impl nvshmem_host::KernelArg for Extents {}
/// ```
pub unsafe trait KernelArg {
    /// Appends the addresses of the kernel parameters this value fills, as `cuLaunchKernel` wants
    /// them: one, the value itself, for every type but a typed launch's slice
    /// ([`LaunchValue`](crate::LaunchValue)), which fills two.
    fn push_params(&self, params: &mut Vec<*mut c_void>) {
        params.push((self as *const Self).cast_mut().cast());
    }
}

macro_rules! kernel_args {
    ($($ty:ty),*) => { $(
        // SAFETY: a primitive's layout is the same on host and device (both 64-bit little-endian).
        unsafe impl KernelArg for $ty {}
    )* };
}
kernel_args!(
    f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, isize, usize, bool
);

// SAFETY: a device address, passed as a 64-bit pointer.
unsafe impl<T> KernelArg for *const T {}
// SAFETY: a device address, passed as a 64-bit pointer.
unsafe impl<T> KernelArg for *mut T {}
// SAFETY: `SymmetricPtr` is `#[repr(transparent)]` over a device pointer.
unsafe impl<T> KernelArg for SymmetricPtr<T> {}
impl Kernel<'_> {
    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The kernel as a cudarc function, for cudarc's launch builder (`stream.launch_builder(f)`),
    /// which takes symmetric buffers as arguments ([`crate::SymmetricBuffer`] implements cudarc's
    /// device-memory traits). Launching through cudarc skips this crate's checks (block size,
    /// cooperative grid); a kernel that calls NVSHMEM may run only while the [`crate::Module`] it
    /// came from is alive, as NVSHMEM's state in the module is finalised when that is dropped.
    pub fn cuda_function(&self) -> &CudaFunction {
        &self.function
    }

    /// Launches the kernel on the handle's stream (on another stream: [`OnStream::launch`]);
    /// returns without waiting for it. A block larger
    /// than the kernel can run with (see [`Kernel::max_threads_per_block`]) is refused with
    /// [`KernelLaunchError::BlockTooLarge`] before anything is launched.
    ///
    /// A kernel that waits on other PEs or blocks (barriers, `wait_until`) needs
    /// [`Kernel::launch_cooperative`]: launched this way, a block may wait for one that is not yet
    /// resident and hang.
    ///
    /// # Safety
    /// 1. `args` match the kernel's parameters in number, order and type.
    /// 2. Every pointer argument refers to device memory valid for what the kernel does with it,
    ///    until the kernel has finished.
    ///
    /// ```no_run
    /// # let nvshmem = nvshmem_host::Nvshmem::init()?;
    /// # let module = nvshmem.load_module("")?;
    /// let buffer = nvshmem.alloc::<f32>(256)?;
    /// let kernel = module.kernel("scale")?;
    /// // SAFETY: `scale(data: SymmetricPtr<f32>, n: usize)` touches `n` elements of `data`.
    /// unsafe {
    ///     kernel.launch(nvshmem_host::LaunchShape::linear(1, 256), &[&buffer.as_symmetric_ptr(), &256usize])?
    /// };
    /// # Ok::<(), nvshmem_host::Error>(())
    /// ```
    pub unsafe fn launch(&self, config: LaunchShape, args: &[&dyn KernelArg]) -> Result<(), Error> {
        let on = crate::stream_ops::on_own_stream(self.module.nvshmem());
        // SAFETY: the caller's contract, the same.
        unsafe { on.launch(self, config, args) }
    }

    /// Launches the kernel cooperatively: all blocks are resident at once, so blocks and PEs may
    /// wait for each other (barriers, `wait_until`, collectives). Checks the block size (as
    /// [`Kernel::launch`] does) and the grid against occupancy × multiprocessors first.
    ///
    /// # Safety
    /// As for [`Kernel::launch`]; and every PE launches the same collective calls.
    pub unsafe fn launch_cooperative(
        &self,
        config: LaunchShape,
        args: &[&dyn KernelArg],
    ) -> Result<(), Error> {
        let on = crate::stream_ops::on_own_stream(self.module.nvshmem());
        // SAFETY: the caller's contract, the same.
        unsafe { on.launch_cooperative(self, config, args) }
    }

    /// The most blocks of this shape that can be resident at once (the cooperative-launch limit),
    /// with the resident blocks per multiprocessor and the multiprocessor count. A block larger
    /// than the kernel can run is [`KernelLaunchError::BlockTooLarge`], not a limit of 0.
    pub fn max_cooperative_blocks(&self, config: LaunchShape) -> Result<(u32, u32, u32), Error> {
        self.check_block(config)?;
        // SAFETY: the function belongs to a loaded module.
        let blocks_per_sm = unsafe {
            cudarc::driver::result::occupancy::max_active_block_per_multiprocessor(
                self.function.cu_function(),
                config.threads_per_block() as i32,
                config.shared_mem_bytes as usize,
            )
        }
        .doing(format!("computing the occupancy of `{}`", self.name))?
            as u32;
        let sms = self
            .module
            .nvshmem()
            .context()
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .doing("reading the multiprocessor count")? as u32;
        Ok((blocks_per_sm * sms, blocks_per_sm, sms))
    }

    /// The most threads a block of this kernel can have: 1024 on current GPUs, fewer when the
    /// kernel's registers per thread ([`Kernel::registers`]) would not fit a larger block on a
    /// multiprocessor.
    ///
    /// ```no_run
    /// # let nvshmem = nvshmem_host::Nvshmem::init()?;
    /// # let module = nvshmem.load_module("")?;
    /// let kernel = module.kernel("scale")?;
    /// let threads = kernel.max_threads_per_block().min(512);
    /// # Ok::<(), nvshmem_host::Error>(())
    /// ```
    pub fn max_threads_per_block(&self) -> u32 {
        self.max_threads_per_block
    }

    /// Registers per thread of the kernel, as `ptxas` allocated them when the module was loaded.
    ///
    /// ```no_run
    /// # let nvshmem = nvshmem_host::Nvshmem::init()?;
    /// # let module = nvshmem.load_module("")?;
    /// println!("scale uses {} registers", module.kernel("scale")?.registers());
    /// # Ok::<(), nvshmem_host::Error>(())
    /// ```
    pub fn registers(&self) -> u32 {
        self.registers
    }

    fn check_block(&self, config: LaunchShape) -> Result<(), Error> {
        let requested = config.threads_per_block();
        if requested > self.max_threads_per_block {
            return Err(KernelLaunchError::BlockTooLarge {
                kernel: self.name.clone(),
                requested,
                limit: self.max_threads_per_block,
                registers: self.registers,
            }
            .into());
        }
        Ok(())
    }

    fn check_cooperative_grid(&self, config: LaunchShape) -> Result<(), Error> {
        let (limit, blocks_per_sm, sms) = self.max_cooperative_blocks(config)?;
        let requested = config.blocks();
        if requested > limit {
            return Err(KernelLaunchError::CooperativeGridTooLarge {
                requested,
                limit,
                blocks_per_sm,
                sms,
            }
            .into());
        }
        Ok(())
    }
}

impl OnStream<'_> {
    /// [`Kernel::launch`] on this stream.
    ///
    /// # Safety
    /// As for [`Kernel::launch`].
    pub unsafe fn launch(
        &self,
        kernel: &Kernel<'_>,
        config: LaunchShape,
        args: &[&dyn KernelArg],
    ) -> Result<(), Error> {
        kernel.check_block(config)?;
        // SAFETY: the caller's contract, as for `enqueue`.
        unsafe {
            self.enqueue(
                kernel,
                config,
                args,
                cudarc::driver::result::launch_kernel,
                "",
            )
        }
    }

    /// [`Kernel::launch_cooperative`] on this stream.
    ///
    /// # Safety
    /// As for [`Kernel::launch_cooperative`].
    pub unsafe fn launch_cooperative(
        &self,
        kernel: &Kernel<'_>,
        config: LaunchShape,
        args: &[&dyn KernelArg],
    ) -> Result<(), Error> {
        kernel.check_cooperative_grid(config)?;
        let launch = cudarc::driver::result::launch_cooperative_kernel;
        // SAFETY: the caller's contract, as for `enqueue`; the grid fits (checked above).
        unsafe { self.enqueue(kernel, config, args, launch, " cooperatively") }
    }

    /// Enqueues `kernel` on this stream with `launch` (cudarc's plain or cooperative launch, which
    /// share a signature).
    ///
    /// # Safety
    /// The arguments match the kernel's parameters and point to memory valid until it finishes;
    /// for a cooperative launch, the grid fits on the GPU at once.
    unsafe fn enqueue(
        &self,
        kernel: &Kernel<'_>,
        config: LaunchShape,
        args: &[&dyn KernelArg],
        launch: LaunchFn,
        how: &str,
    ) -> Result<(), Error> {
        let mut params: Vec<*mut c_void> = Vec::with_capacity(args.len());
        for arg in args {
            arg.push_params(&mut params);
        }
        // The driver reads as many parameters as the entry declares: fewer arguments would have it
        // read past `params`, and a count that differs at all means host and device disagree.
        if let Some(declared) = kernel.param_count
            && declared != params.len()
        {
            return Err(KernelLaunchError::ParameterCount {
                kernel: kernel.name.clone(),
                declared,
                passed: params.len(),
            }
            .into());
        }
        let (grid, block, shared) = (config.grid, config.block, config.shared_mem_bytes);
        let (function, stream) = (kernel.function.cu_function(), self.stream.cu_stream());
        // SAFETY: the function belongs to a loaded module of NVSHMEM's context, as the stream does
        // (`Nvshmem::on` checks); the rest is the caller's contract.
        unsafe { launch(function, grid, block, shared, stream, &mut params) }
            .doing(format!("launching kernel `{}`{how}", kernel.name))
    }
}
