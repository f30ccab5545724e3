//! [`SymmetricBuffer`] as device memory for cudarc: it implements cudarc's [`DeviceSlice`],
//! [`DevicePtr`] and [`DevicePtrMut`], and is a kernel argument of cudarc's launch builder, so
//! cudarc's copies (`memcpy_dtod`, `memcpy_htod`, `memset_zeros`…), its launches and the libraries
//! built on these traits (cuBLAS, cuRAND wrappers) work on symmetric memory.
//!
//! # Ordering
//! cudarc orders its own allocations with events it records per allocation; a symmetric buffer has
//! none, because most writes to it are not this process's to see: other PEs put into it. So:
//! - [`DevicePtr::device_ptr`] and [`DevicePtrMut::device_ptr_mut`] make cudarc's stream wait for
//!   the work enqueued so far on the handle's stream ([`crate::Nvshmem::stream`]): this PE's
//!   NVSHMEM kernels and on-stream operations there come first.
//! - What other PEs write is ordered only by NVSHMEM: enqueue a barrier on the stream that then
//!   reads, `nvshmem.on(&stream)?.barrier_all_on_stream()` (each PE's puts complete before it
//!   arrives), or call [`crate::Nvshmem::barrier_all`] and then enqueue the read.
//! - cudarc's launch builder ([`PushKernelArg`]) cannot be told about streams by an argument: a
//!   kernel launched on another stream is ordered by the caller, as above (a barrier on that
//!   stream, or `stream.join(nvshmem.stream())`).
//! - NVSHMEM's later work is not ordered after cudarc's: enqueue it on the same stream
//!   (`nvshmem.on(&stream)`), or synchronise that stream first.
//! - Dropping the buffer waits for every stream of NVSHMEM's context before it frees the memory,
//!   so a copy still queued on another stream never writes into a freed (or reallocated) buffer.
//!
//! ```no_run
//! use cudarc::driver::PushKernelArg;
//! use nvshmem_host::{Nvshmem, StreamOperations};
//! # let function: cudarc::driver::CudaFunction = todo!();
//! let nvshmem = Nvshmem::init()?;
//! let stream = nvshmem.context().new_stream().expect("a stream");
//! let received = nvshmem.alloc_zeroed::<u32>(256)?;
//! // … other PEs put into `received` …
//! nvshmem.on(&stream)?.barrier_all_on_stream();
//! let mut copy = stream.alloc_zeros::<u32>(256).expect("allocated");
//! stream.memcpy_dtod(&received, &mut copy).expect("copied");
//! let n = 256u32;
//! let mut launch = stream.launch_builder(&function);
//! launch.arg(&received).arg(&n);
//! // SAFETY: the kernel reads `n` u32 of its first argument.
//! unsafe { launch.launch(cudarc::driver::LaunchConfig::for_num_elems(n)) }.expect("launched");
//! # Ok::<(), nvshmem_host::Error>(())
//! ```

use crate::SymmetricBuffer;
use bytemuck::Pod;
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{
    CudaStream, DevicePtr, DevicePtrMut, DeviceSlice, LaunchArgs, PushKernelArg, SyncOnDrop,
};
use std::sync::Arc;

impl<T: Pod> SymmetricBuffer<'_, T> {
    /// Makes `stream` wait for the work enqueued so far on the handle's stream; an error is kept in
    /// the context, as cudarc keeps its own (`CudaContext::check_err`).
    fn after_handle_stream(&self, stream: &CudaStream) {
        let own = self.nvshmem.stream();
        if stream != &**own {
            stream.context().record_err(stream.join(own));
        }
    }
}

impl<T: Pod> DeviceSlice<T> for SymmetricBuffer<'_, T> {
    fn len(&self) -> usize {
        SymmetricBuffer::len(self)
    }

    /// The handle's stream ([`crate::Nvshmem::stream`]).
    fn stream(&self) -> &Arc<CudaStream> {
        self.nvshmem.stream()
    }
}

impl<T: Pod> DevicePtr<T> for SymmetricBuffer<'_, T> {
    fn device_ptr<'a>(&'a self, stream: &'a CudaStream) -> (CUdeviceptr, SyncOnDrop<'a>) {
        self.after_handle_stream(stream);
        (self.address, SyncOnDrop::Record(None))
    }
}

impl<T: Pod> DevicePtrMut<T> for SymmetricBuffer<'_, T> {
    fn device_ptr_mut<'a>(&'a mut self, stream: &'a CudaStream) -> (CUdeviceptr, SyncOnDrop<'a>) {
        self.after_handle_stream(stream);
        (self.address, SyncOnDrop::Record(None))
    }
}

// SAFETY: the argument is the buffer's device address, a `u64` that lives as long as the borrow of
// the buffer, as cudarc's own `&CudaSlice` argument is; the kernel parameter is a pointer.
unsafe impl<'a, 'b: 'a, T: Pod> PushKernelArg<&'b SymmetricBuffer<'_, T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b SymmetricBuffer<'_, T>) -> &mut Self {
        <Self as PushKernelArg<&'b CUdeviceptr>>::arg(self, &arg.address)
    }
}

// SAFETY: as for the shared borrow; the exclusive borrow says the kernel may write.
unsafe impl<'a, 'b: 'a, T: Pod> PushKernelArg<&'b mut SymmetricBuffer<'_, T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b mut SymmetricBuffer<'_, T>) -> &mut Self {
        <Self as PushKernelArg<&'b CUdeviceptr>>::arg(self, &arg.address)
    }
}
