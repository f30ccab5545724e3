//! Typed buffers in NVSHMEM's symmetric heap.

use crate::allocation_check;
use crate::environment::{self, HeapBound};
use crate::error::DriverErrorContext as _;
use crate::result::Allocation;
use crate::{Error, MemoryError, Nvshmem, result};
use bytemuck::Pod;
use cudarc::driver::sys::CUdeviceptr;
use nvshmem_abi::SymmetricPtr;
use std::marker::PhantomData;
use std::sync::atomic::Ordering;

/// `len` values of `T` in the symmetric heap: the same offset on every PE, reachable by the others'
/// puts and gets. Freed (collectively) on drop, once the work of every stream of NVSHMEM's context
/// has finished; it borrows the [`Nvshmem`] handle, so it cannot outlive NVSHMEM.
///
/// Allocation and freeing are collective: every PE must allocate the same sizes in the same order,
/// and drop its buffers in the same order. The allocation check refuses the next checked allocation,
/// on every PE, where they did not (see [`crate::allocation_check`]).
///
/// ```no_run
/// let nvshmem = nvshmem_host::Nvshmem::init()?;
/// let mut buffer = nvshmem.alloc::<f32>(1024)?;
/// buffer.copy_from_host(&vec![1.0; 1024])?;
/// assert_eq!(buffer.to_vec()?[0], 1.0);
/// # Ok::<(), nvshmem_host::Error>(())
/// ```
pub struct SymmetricBuffer<'nv, T: Pod> {
    pub(crate) nvshmem: &'nv Nvshmem,
    /// The device address, kept as the integer kernel parameters and cudarc take.
    pub(crate) address: CUdeviceptr,
    len: usize,
    /// Whether the allocation check established that every PE allocated the same size.
    checked: bool,
    /// Its number among the handle's allocations, which its free adds to the heap's history.
    allocation: u64,
    /// Owns `T`s; not `Send`, as freeing needs NVSHMEM's context current on the freeing thread.
    _owns: PhantomData<*mut T>,
}

impl<T: Pod> std::fmt::Debug for SymmetricBuffer<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "SymmetricBuffer<{}>({:p}, len {})",
            std::any::type_name::<T>(),
            self.ptr(),
            self.len
        )
    }
}

impl Nvshmem {
    /// Allocates `len` uninitialised-on-device values of `T` (`nvshmem_malloc`); collective.
    ///
    /// ```no_run
    /// # let nvshmem = nvshmem_host::Nvshmem::init()?;
    /// let halo = nvshmem.alloc::<f64>(4096)?;
    /// # Ok::<(), nvshmem_host::Error>(())
    /// ```
    pub fn alloc<T: Pod>(&self, len: usize) -> Result<SymmetricBuffer<'_, T>, Error> {
        self.allocate(len, Allocation::Uninitialized)
    }

    /// Allocates `len` zeroed values of `T` (`nvshmem_calloc`); collective.
    ///
    /// ```no_run
    /// # let nvshmem = nvshmem_host::Nvshmem::init()?;
    /// let flags = nvshmem.alloc_zeroed::<u64>(2)?;
    /// # Ok::<(), nvshmem_host::Error>(())
    /// ```
    pub fn alloc_zeroed<T: Pod>(&self, len: usize) -> Result<SymmetricBuffer<'_, T>, Error> {
        self.allocate(len, Allocation::Zeroed)
    }

    /// Allocates `len` values of `T` at an address aligned to `alignment` bytes (`nvshmem_align`);
    /// collective. `alignment` must be a power of two, at least `T`'s alignment and a pointer's
    /// size (8 bytes).
    ///
    /// ```no_run
    /// # let nvshmem = nvshmem_host::Nvshmem::init()?;
    /// let rows = nvshmem.alloc_aligned::<f32>(1 << 20, 4096)?;
    /// # Ok::<(), nvshmem_host::Error>(())
    /// ```
    pub fn alloc_aligned<T: Pod>(
        &self,
        len: usize,
        alignment: usize,
    ) -> Result<SymmetricBuffer<'_, T>, Error> {
        self.allocate(len, Allocation::Aligned(alignment))
    }

    /// Reaches this PE's verdict on the request, makes it part of the collective check (so that
    /// every PE returns the same error where any PE refuses), and allocates.
    fn allocate<T: Pod>(
        &self,
        len: usize,
        how: Allocation,
    ) -> Result<SymmetricBuffer<'_, T>, Error> {
        let alignment = match how {
            Allocation::Aligned(alignment) => Some(alignment),
            Allocation::Uninitialized | Allocation::Zeroed => None,
        };
        let in_use = self.heap_in_use().load(Ordering::SeqCst);
        let bound = environment::heap_bound(|name| std::env::var_os(name));
        let (free, _total) = self
            .context()
            .mem_get_info()
            .doing("reading the GPU's free memory")?;
        // `nvshmem_align` is undefined below a pointer's size.
        let minimum = align_of::<T>().max(size_of::<*const T>());
        let element = (len, size_of::<T>(), minimum);
        let verdict = allocation_check::local_verdict(element, alignment, in_use, bound, free);
        let alignment = alignment.unwrap_or(0);
        // The allocation and its check are collectives over every PE.
        self.settle_team_work()?;
        let checked = self.check_allocation(verdict, alignment)?;
        // Reached with a refusal only with the check off: the refusal is then this PE's alone.
        let bytes = verdict.map_err(|refusal| Error::from(refusal.into_error()))?;
        // NVSHMEM grows the heap by whole granules beside what it keeps for itself: a request
        // that leaves less than a granule below the cap may have met the cap after all.
        let granule = environment::heap_granule(|name| std::env::var_os(name));
        let room = |cap: u64| {
            (in_use as u64)
                .saturating_add(bytes as u64)
                .saturating_add(granule)
                <= cap
        };
        let ptr = result::malloc(self.lib(), bytes, how).map_err(|error| match error {
            // The cap holds the request with room to spare: NVSHMEM's growth of the heap failed.
            Error::Memory(MemoryError::HeapExhausted {
                bytes,
                bound: Some(HeapBound::Cap(cap)),
                ..
            }) if room(cap) => MemoryError::HeapGrowthFailed {
                bytes,
                in_use,
                cap,
                free,
                pes_per_gpu: nvshmem_pe_env::pes_per_gpu(),
                mps: nvshmem_pe_env::mps::detect().is_some(),
            }
            .into(),
            Error::Memory(MemoryError::HeapExhausted { bytes, bound, .. }) => {
                MemoryError::HeapExhausted {
                    bytes,
                    in_use,
                    bound,
                }
                .into()
            }
            other => other,
        })?;
        self.heap_in_use().fetch_add(bytes, Ordering::SeqCst);
        // Checked or not: the allocation moved the heap, and the next check compares how.
        let mut history = self.heap_history().get();
        let allocation = history.allocated(bytes, alignment);
        self.heap_history().set(history);
        Ok(SymmetricBuffer {
            nvshmem: self,
            address: ptr as CUdeviceptr,
            len,
            checked,
            allocation,
            _owns: PhantomData,
        })
    }
}

impl<T: Pod> SymmetricBuffer<'_, T> {
    /// Refuses this buffer where its size on the other PEs matters (a safe kernel's slice, an
    /// on-stream operation that reaches other PEs), unless the allocation check found it of the
    /// same size on every PE: lengths are checked against this PE's copy alone.
    pub(crate) fn require_checked(&self) -> Result<(), MemoryError> {
        if self.checked {
            Ok(())
        } else {
            Err(MemoryError::UncheckedBuffer {
                bytes: self.len * size_of::<T>(),
            })
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: empty symmetric buffers are not allocated.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The symmetric address, to pass to a kernel.
    pub fn as_symmetric_ptr(&self) -> SymmetricPtr<T> {
        // SAFETY: `address` was returned by nvshmem_malloc/calloc and stays allocated while `self`
        // lives.
        unsafe { SymmetricPtr::from_raw(self.ptr()) }
    }

    pub(crate) fn ptr(&self) -> *mut T {
        self.address as *mut T
    }

    /// Copies `source` (exactly [`len`](Self::len) elements) into the buffer, waiting until done.
    pub fn copy_from_host(&mut self, source: &[T]) -> Result<(), Error> {
        self.check_len(source.len())?;
        // SAFETY: the buffer holds `len` elements of device memory and `source` as many host ones.
        unsafe { cudarc::driver::result::memcpy_htod_sync(self.address, source) }
            .doing("copying host data into a symmetric buffer")
    }

    /// Copies the buffer into `destination` (exactly [`len`](Self::len) elements), waiting until
    /// kernels on the handle's stream have finished.
    pub fn copy_to_host(&self, destination: &mut [T]) -> Result<(), Error> {
        self.check_len(destination.len())?;
        self.nvshmem.synchronize()?;
        // SAFETY: the buffer holds `len` elements of device memory and `destination` as many host ones.
        unsafe { cudarc::driver::result::memcpy_dtoh_sync(destination, self.address) }
            .doing("copying a symmetric buffer to the host")
    }

    /// The buffer's contents.
    pub fn to_vec(&self) -> Result<Vec<T>, Error> {
        let mut values = vec![T::zeroed(); self.len];
        self.copy_to_host(&mut values)?;
        Ok(values)
    }

    fn check_len(&self, slice: usize) -> Result<(), Error> {
        if slice == self.len {
            Ok(())
        } else {
            Err(MemoryError::LengthMismatch {
                buffer: self.len,
                slice,
            }
            .into())
        }
    }
}

impl<T: Pod> Drop for SymmetricBuffer<'_, T> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // `nvshmem_free` is collective and the other PEs may not be freeing: leak instead of
            // waiting forever while this PE unwinds.
            return;
        }
        // Every stream: an on-stream transfer or a cudarc copy on another stream may still use it.
        if let Err(error) = self.nvshmem.synchronize_context() {
            self.nvshmem.defer_error(error);
        }
        // SAFETY: `address` came from `result::malloc` and nothing uses it after this. Every free
        // meets the other PEs' frees whatever buffers they drop; a PE that drops its buffers in
        // another order is found by the next checked allocation, through the heap's history.
        unsafe { result::free(self.nvshmem.lib(), self.ptr().cast()) }
        let history = self.nvshmem.heap_history();
        let mut events = history.get();
        events.freed(self.allocation);
        history.set(events);
        // The product was checked when the buffer was allocated.
        let bytes = self.len * size_of::<T>();
        self.nvshmem
            .heap_in_use()
            .fetch_sub(bytes, Ordering::SeqCst);
    }
}
