//! Memory allocated outside NVSHMEM (a cudarc [`CudaSlice`]) registered with NVSHMEM
//! (`nvshmemx_buffer_register`), so that it can be the local side of puts and gets, and the
//! [`LocalMemory`] trait that names what can be.
//!
//! # Soundness
//! A [`RegisteredBuffer`] borrows its allocation, so the allocation cannot be dropped while the
//! guard lives; but `mem::forget` of the guard is safe and ends that borrow without its `Drop`
//! running, after which the allocation can be dropped, and cudarc frees it. So nothing here rests
//! on the guard's `Drop`:
//! - Ordering, at enqueue time: after each on-stream operation on registered memory is enqueued on
//!   a stream, the allocation's own stream ([`CudaSlice::stream`]) is made to wait for that
//!   stream's work so far (an event recorded there). cudarc frees a slice on its own stream
//!   (`cuMemFreeAsync`, or after synchronising that stream), so the free, and the reuse of the
//!   memory by a later allocation on that stream, come after the operation, with the guard dropped
//!   or leaked. The same stream needs no wait; a stream capturing a graph runs nothing yet, and a
//!   replay's own contract ([`crate::Graph::replay`] is `unsafe`) keeps the memory allocated;
//!   where the wait cannot be enqueued, the call waits for the operation itself.
//! - Registration: a leaked guard never unregisters, so its range stays registered with NVSHMEM
//!   after cudarc frees the memory. NVSHMEM uses a registration only for operations given an
//!   address in its range, and the safe API gives it addresses of live symmetric buffers and of
//!   live guards only. The handle keeps the ranges registered through it, and refuses to register
//!   memory that overlaps one ([`MemoryError::AlreadyRegistered`]), so no live guard lies under a
//!   stale registration. A leaked guard therefore leaks its registration, and keeps its range from
//!   being registered again while the handle lives; nothing else.

use crate::error::DriverErrorContext as _;
use crate::{Error, MemoryError, Nvshmem, SymmetricBuffer, result};
use bytemuck::Pod;
use cudarc::driver::sys::CUstreamCaptureStatus;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use std::ffi::c_void;

pub(crate) mod sealed {
    use crate::Error;
    use cudarc::driver::CudaStream;

    pub trait Sealed {
        /// Orders the release of the memory after the work enqueued so far on `stream`, where its
        /// own release does not wait for that stream anyway; called after each on-stream operation
        /// on it is enqueued there.
        fn order_release_after(&self, stream: &CudaStream) -> Result<(), Error>;
    }
}

/// A range of device memory registered through this crate: its address and bytes.
pub(crate) type Range = (u64, usize);

/// The first of `registered` that overlaps `bytes` bytes at `address`.
fn overlapping(registered: &[Range], (address, bytes): Range) -> Option<Range> {
    let end = |(start, bytes): Range| u128::from(start) + bytes as u128;
    registered.iter().copied().find(|&other| {
        u128::from(other.0) < end((address, bytes)) && u128::from(address) < end(other)
    })
}

/// Device memory NVSHMEM can use as this PE's side of a put (the source) or get (the
/// destination): a [`SymmetricBuffer`] or a [`RegisteredBuffer`]. The other side is always
/// symmetric.
pub trait LocalMemory<T: Pod>: sealed::Sealed {
    /// The number of elements.
    fn len(&self) -> usize;

    /// Always false: neither kind is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The local device address.
    #[doc(hidden)]
    fn local_ptr(&self) -> *mut T;
}

impl<T: Pod> sealed::Sealed for SymmetricBuffer<'_, T> {
    /// Nothing: dropping a symmetric buffer waits for every stream of NVSHMEM's context, and
    /// leaking one leaks its memory.
    fn order_release_after(&self, _stream: &CudaStream) -> Result<(), Error> {
        Ok(())
    }
}

impl<T: Pod> LocalMemory<T> for SymmetricBuffer<'_, T> {
    fn len(&self) -> usize {
        SymmetricBuffer::len(self)
    }

    fn local_ptr(&self) -> *mut T {
        self.as_symmetric_ptr().as_ptr()
    }
}

/// A cudarc allocation registered with NVSHMEM (`nvshmemx_buffer_register`): the local side of
/// puts and gets ([`LocalMemory`]), unregistered (`nvshmemx_buffer_unregister`) on drop, with an
/// error then kept in the [`Nvshmem`] handle ([`Nvshmem::take_deferred_errors`]). It borrows the
/// allocation, so the allocation outlives the registration.
///
/// Registration is local to this PE: other PEs cannot address the memory (it is not symmetric).
/// Ordering against cudarc's own work on the allocation is the caller's: work cudarc enqueued on
/// it must be complete (or ordered before, on the same stream) when NVSHMEM's operation runs, and
/// the reverse. Its release is not: dropping the guard waits for every stream of NVSHMEM's context
/// before unregistering, and each on-stream operation on it orders the allocation's free after
/// itself when it is enqueued, so that even a leaked guard (`mem::forget`) never lets the memory
/// be freed under queued work (the module's soundness note says how).
pub struct RegisteredBuffer<'a, T: Pod> {
    nvshmem: &'a Nvshmem,
    address: *mut T,
    len: usize,
    slice: &'a CudaSlice<T>,
}

impl<T: Pod> std::fmt::Debug for RegisteredBuffer<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "RegisteredBuffer<{}>({:p}, len {})",
            std::any::type_name::<T>(),
            self.address,
            self.len
        )
    }
}

impl Nvshmem {
    /// Registers `slice` with NVSHMEM so that it can be the local side of puts and gets. The slice
    /// must belong to NVSHMEM's context, be non-empty, and not overlap memory registered through
    /// another guard, alive or leaked ([`MemoryError::AlreadyRegistered`]). An NVSHMEM host library
    /// without the call is [`Error::MissingSymbol`], naming its version.
    ///
    /// ```no_run
    /// use nvshmem_host::{Nvshmem, StreamOperations};
    /// let nvshmem = Nvshmem::init()?;
    /// let stream = nvshmem.stream();
    /// let slice = stream.clone_htod(&[1u32, 2, 3]).expect("copied");
    /// let dest = nvshmem.alloc_zeroed::<u32>(3)?;
    /// let local = nvshmem.register(&slice)?;
    /// nvshmem.put_on_stream(&dest, &local, 3, (nvshmem.my_pe() + 1) % nvshmem.n_pes())?;
    /// # Ok::<(), nvshmem_host::Error>(())
    /// ```
    pub fn register<'a, T: Pod>(
        &'a self,
        slice: &'a CudaSlice<T>,
    ) -> Result<RegisteredBuffer<'a, T>, Error> {
        if **slice.context() != **self.context() {
            return Err(Error::ForeignContext {
                what: "the allocation",
                gpu: slice.context().ordinal(),
                nvshmem_gpu: self.context().ordinal(),
            });
        }
        if slice.is_empty() {
            return Err(MemoryError::EmptyAllocation.into());
        }
        let (address, _record) = slice.device_ptr(slice.stream());
        let range = (address, slice.num_bytes());
        let mut registered = self.registered_ranges();
        if let Some(registered) = overlapping(&registered, range) {
            return Err(MemoryError::AlreadyRegistered {
                address,
                bytes: range.1,
                registered,
            }
            .into());
        }
        let address = address as *mut T;
        // SAFETY: the slice is a live allocation of NVSHMEM's context (checked above) of
        // `num_bytes` bytes, borrowed by the guard until it unregisters it, and overlaps no range
        // registered through this handle (checked above).
        unsafe { result::buffer_register(self.lib(), address.cast(), slice.num_bytes()) }?;
        registered.push(range);
        Ok(RegisteredBuffer {
            nvshmem: self,
            address,
            len: slice.len(),
            slice,
        })
    }
}

impl<T: Pod> sealed::Sealed for RegisteredBuffer<'_, T> {
    /// Makes the allocation's own stream, where cudarc frees it, wait for `stream`'s work so far.
    fn order_release_after(&self, stream: &CudaStream) -> Result<(), Error> {
        let own = self.slice.stream();
        if **own == *stream {
            return Ok(());
        }
        match stream.capture_status() {
            Ok(CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE) => {
                if own.join(stream).is_ok() {
                    return Ok(());
                }
            }
            // Captured work runs only in replays, whose contract keeps the memory allocated.
            Ok(_) => return Ok(()),
            Err(_) => {}
        }
        // Without the wait, the operation must finish before the allocation can be released.
        stream.synchronize().doing(
            "waiting for an operation on registered memory whose release could not be ordered \
             after it",
        )
    }
}

impl<T: Pod> LocalMemory<T> for RegisteredBuffer<'_, T> {
    fn len(&self) -> usize {
        self.len
    }

    fn local_ptr(&self) -> *mut T {
        self.address
    }
}

impl<T: Pod> Drop for RegisteredBuffer<'_, T> {
    fn drop(&mut self) {
        // NVSHMEM's operations on the memory may still be queued, on any stream of the context.
        if let Err(error) = self.nvshmem.synchronize_context() {
            self.nvshmem.defer_error(error);
        }
        let address: *mut c_void = self.address.cast();
        // SAFETY: registered in `Nvshmem::register`, unregistered once here; the operations on it
        // have finished (the wait above for every stream).
        match unsafe { result::buffer_unregister(self.nvshmem.lib(), address) } {
            // Still registered otherwise: its range stays refused to new registrations.
            Ok(()) => self
                .nvshmem
                .registered_ranges()
                .retain(|&(start, _)| start != self.address as u64),
            Err(error) => self.nvshmem.defer_error(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::overlapping;

    #[test]
    fn a_range_overlapping_a_registered_one_is_found() {
        let registered = [(0x1000, 0x100), (0x4000, 0x1000)];
        assert_eq!(overlapping(&registered, (0x1100, 0x100)), None);
        assert_eq!(overlapping(&registered, (0x0f00, 0x100)), None);
        assert_eq!(overlapping(&registered, (0x10ff, 1)), Some((0x1000, 0x100)));
        assert_eq!(
            overlapping(&registered, (0x3000, 0x1001)),
            Some((0x4000, 0x1000))
        );
        assert_eq!(
            overlapping(&registered, (0x4800, 8)),
            Some((0x4000, 0x1000))
        );
        // A range reaching the end of the address space neither wraps nor misses.
        assert_eq!(
            overlapping(&[(u64::MAX - 7, 8)], (u64::MAX, usize::MAX)),
            Some((u64::MAX - 7, 8))
        );
    }
}
