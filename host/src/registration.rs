//! Memory allocated outside NVSHMEM (a cudarc [`CudaSlice`]) registered with NVSHMEM
//! (`nvshmemx_buffer_register`), so that it can be the local side of puts and gets, and the
//! [`LocalMemory`] trait that names what can be.

use crate::{Error, MemoryError, Nvshmem, SymmetricBuffer, result};
use bytemuck::Pod;
use cudarc::driver::{CudaSlice, DevicePtr};
use std::ffi::c_void;

mod sealed {
    pub trait Sealed {}
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

impl<T: Pod> sealed::Sealed for SymmetricBuffer<'_, T> {}

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
/// Ordering is the caller's: work cudarc enqueued on the allocation's stream must be complete (or
/// ordered before, on the same stream) when NVSHMEM's operation runs, and the reverse; NVSHMEM's
/// operations on it must have finished when it is dropped (the drop waits for the handle's
/// stream; synchronise any other stream they ran on first).
pub struct RegisteredBuffer<'a, T: Pod> {
    nvshmem: &'a Nvshmem,
    address: *mut T,
    len: usize,
    _slice: &'a CudaSlice<T>,
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
    /// must belong to NVSHMEM's context and be non-empty. An NVSHMEM host library without the
    /// call is [`Error::MissingSymbol`], naming its version.
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
        let address = address as *mut T;
        // SAFETY: the slice is a live allocation of NVSHMEM's context (checked above) of
        // `num_bytes` bytes, borrowed by the guard until it unregisters it.
        unsafe { result::buffer_register(self.lib(), address.cast(), slice.num_bytes()) }?;
        Ok(RegisteredBuffer {
            nvshmem: self,
            address,
            len: slice.len(),
            _slice: slice,
        })
    }
}

impl<T: Pod> sealed::Sealed for RegisteredBuffer<'_, T> {}

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
        if let Err(error) = unsafe { result::buffer_unregister(self.nvshmem.lib(), address) } {
            self.nvshmem.defer_error(error);
        }
    }
}
