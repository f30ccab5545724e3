//! Symmetric slices: the safe kernel-side view of a symmetric buffer, an address with its length.
//!
//! A [`SymmetricSlice<T>`] is what a safe kernel receives for a host `SymmetricBuffer<T>` (two
//! words: the address and the element count). Its invariant, which the host's typed launch
//! establishes and the `unsafe` constructor states, is that the elements lie inside one symmetric
//! allocation of the same size on every PE, alive until the kernel has finished. So an index that
//! is in bounds here is in bounds on every PE, and one bounds check per call covers both ends of a
//! transfer.
//!
//! Other PEs, other threads of the grid and NVSHMEM may write into the slice at any time, so the
//! safe layer never hands out `&T` or `&mut T` into it: [`read`](SymmetricSlice::read) and
//! [`write`](SymmetricSlice::write) copy one element by value with a relaxed atomic access
//! ([`RelaxedAccess`](crate::RelaxedAccess)). Atomic accesses never race by Rust's rules, so a
//! concurrent write gives an old or a new value, never undefined behaviour. The element types
//! ([`Element`]) are plain numbers, for which every bit pattern is a value.
//!
//! A range outside the slice, or a transfer between slices of different lengths, traps in every
//! build with a message naming the call, the range and the length, as indexing a Rust slice panics:
//!
//! ```text
//! nvshmem-gpu: PE 1 (block 0, thread 0): SymmetricSlice::range: range 8..12 is out of bounds for a symmetric slice of 10 elements
//! ```

use crate::element::{AtomicAdd, AtomicCompareSwap, AtomicElement, Element};
use crate::pe::Pe;
use crate::relaxed::{LocalAtomic, RelaxedAccess};
use core::ffi::CStr;
use core::ops::{Bound, RangeBounds};
use nvshmem_abi::SymmetricPtr;

/// `len` elements of `T` at a symmetric address: the same elements exist on every PE.
///
/// Made by the host (a `SymmetricBuffer<T>` passed to a safe kernel's launch) and received as a
/// kernel parameter; `Copy`. `#[kernel]` passes a parameter written `SymmetricSlice<T>` as two PTX
/// parameters, the address (`*mut T`, so that the device knows it for global memory) and the length.
///
/// ```
/// use nvshmem_gpu::SymmetricSlice;
/// let mut storage = [0u32; 10];
/// // SAFETY: for the example only; kernels get their slices from the host's launch.
/// let slice = unsafe { SymmetricSlice::from_raw_parts(storage.as_mut_ptr(), 10) };
/// let tail = slice.range(6..);
/// tail.write(0, 7);
/// assert_eq!((tail.len(), slice.read(6)), (4, 7));
/// assert!(slice.get_range(8..12).is_none());
/// ```
#[repr(C)]
pub struct SymmetricSlice<T> {
    start: SymmetricPtr<T>,
    len: usize,
}

impl<T> Clone for SymmetricSlice<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for SymmetricSlice<T> {}

impl<T> core::fmt::Debug for SymmetricSlice<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "SymmetricSlice({:p}, {})", self.start.as_ptr(), self.len)
    }
}

impl<T> SymmetricSlice<T> {
    /// The slice of `len` elements at `start`.
    ///
    /// # Safety
    /// `start..start + len` lies inside one symmetric allocation (`nvshmem_malloc` on every PE in
    /// the same order, with the same size) that stays allocated while the slice is used, and its
    /// elements are initialised values of `T`.
    pub const unsafe fn from_raw_parts(start: *mut T, len: usize) -> SymmetricSlice<T> {
        SymmetricSlice {
            // SAFETY: the caller's contract: `start` is symmetric.
            start: unsafe { SymmetricPtr::from_raw(start) },
            len,
        }
    }

    /// The number of elements.
    pub const fn len(self) -> usize {
        self.len
    }

    /// Whether the slice has no elements.
    pub const fn is_empty(self) -> bool {
        self.len == 0
    }

    /// The first element's symmetric address, for the raw tier (`rma`, `signal`, …), whose calls
    /// are `unsafe` because they do not know the length.
    pub const fn as_symmetric_ptr(self) -> SymmetricPtr<T> {
        self.start
    }

    /// The elements in `range`, or `None` where it does not lie inside the slice.
    pub fn get_range(self, range: impl RangeBounds<usize>) -> Option<SymmetricSlice<T>> {
        let (start, end) = bounds(&range, self.len);
        (start <= end && end <= self.len).then(|| SymmetricSlice {
            // SAFETY: `start <= len`, so the address stays inside (or one past) the allocation.
            start: unsafe { self.start.add(start) },
            len: end - start,
        })
    }

    /// The elements in `range`; traps (panics on the host) where it does not lie inside the slice.
    #[track_caller]
    pub fn range(self, range: impl RangeBounds<usize>) -> SymmetricSlice<T> {
        let (start, end) = bounds(&range, self.len);
        match self.get_range(start..end) {
            Some(slice) => slice,
            None => out_of_bounds(c"SymmetricSlice::range", start, end, self.len),
        }
    }

    /// The slice's address of element `index`, checked for `call`.
    #[track_caller]
    fn element(self, call: &'static CStr, index: usize) -> *mut T {
        if index >= self.len {
            out_of_bounds(call, index, index.saturating_add(1), self.len);
        }
        // SAFETY: `index < len`, inside the allocation.
        unsafe { self.start.as_ptr().add(index) }
    }
}

impl<T: Element + RelaxedAccess> SymmetricSlice<T> {
    /// This PE's element `index`, read by value (a relaxed atomic load: other PEs and threads may
    /// be writing it, and give an old or a new value).
    ///
    /// A read of the destination of a transfer not yet complete (a [`Pending`](crate::Pending)
    /// forgotten before its `quiet`, or another thread's `get`) reads, element by element, the
    /// value before or after the transfer's write: a wrong value, not undefined behaviour.
    #[track_caller]
    pub fn read(self, index: usize) -> T {
        let address = self.element(c"SymmetricSlice::read", index);
        // SAFETY: in bounds (checked), aligned and initialised (the type's invariant); an atomic
        // load races with no other access (module docs).
        unsafe { T::load_relaxed(address) }
    }

    /// Writes `value` into this PE's element `index` (a relaxed atomic store).
    #[track_caller]
    pub fn write(self, index: usize, value: T) {
        let address = self.element(c"SymmetricSlice::write", index);
        // SAFETY: as for `read`: in bounds, aligned, and an atomic store.
        unsafe { T::store_relaxed(address, value) }
    }
}

impl<T: Element + RelaxedAccess> SymmetricSlice<T> {
    /// This PE's elements `start`, `start + stride`, … (`N` of them), each read as [`read`](Self::read)
    /// does, with one bounds check for all: the access of a column, or of one field of an array of
    /// records.
    #[inline]
    #[track_caller]
    pub fn read_strided<const N: usize>(self, start: usize, stride: usize) -> [T; N] {
        let first = self.strided(c"SymmetricSlice::read_strided", start, stride, N);
        // SAFETY: element `start + i × stride` is in bounds for every `i < N` (checked), and each
        // is an atomic load (as `read`).
        core::array::from_fn(|i| unsafe { T::load_relaxed(first.add(i * stride)) })
    }

    /// Writes `values` into this PE's elements `start`, `start + stride`, …, each as
    /// [`write`](Self::write) does, with one bounds check for all.
    #[inline]
    #[track_caller]
    pub fn write_strided<const N: usize>(self, start: usize, stride: usize, values: [T; N]) {
        let first = self.strided(c"SymmetricSlice::write_strided", start, stride, N);
        for (i, value) in values.into_iter().enumerate() {
            // SAFETY: as for `read_strided`, for atomic stores.
            unsafe { T::store_relaxed(first.add(i * stride), value) }
        }
    }

    /// This PE's `N` elements from `index`, 16 bytes (`N × size_of::<T>()` must be 16: a compile
    /// error otherwise), read with one vector load; each element is read as [`read`](Self::read)
    /// reads it. One check: the elements lie in the slice and start on a 16-byte boundary; traps
    /// otherwise.
    #[inline]
    #[track_caller]
    pub fn read_vector<const N: usize>(self, index: usize) -> [T; N] {
        let address = self.vector::<N>(c"SymmetricSlice::read_vector", index);
        // SAFETY: 16 bytes in bounds and 16-byte aligned (checked), accessed atomically
        // (`load_16_relaxed`'s docs).
        let words = unsafe { crate::relaxed::load_16_relaxed(address.cast()) };
        // SAFETY: `[T; N]` is 16 bytes (`vector`'s compile-time check) of a plain number type,
        // for which every bit pattern is a value.
        unsafe { core::mem::transmute_copy::<[u64; 2], [T; N]>(&words) }
    }

    /// Writes `values` into this PE's `N` elements from `index`, 16 bytes, with one vector store;
    /// each element is written as [`write`](Self::write) writes it. Checked as
    /// [`read_vector`](Self::read_vector).
    #[inline]
    #[track_caller]
    pub fn write_vector<const N: usize>(self, index: usize, values: [T; N]) {
        let address = self.vector::<N>(c"SymmetricSlice::write_vector", index);
        // SAFETY: `[T; N]` and `[u64; 2]` are 16 bytes of plain numbers (checked in `vector`).
        let words = unsafe { core::mem::transmute_copy::<[T; N], [u64; 2]>(&values) };
        // SAFETY: as for `read_vector`, for an atomic store.
        unsafe { crate::relaxed::store_16_relaxed(address.cast(), words) }
    }

    /// The address of element `index`, once `index..index + N` is checked to lie in the slice and
    /// the address to be 16-byte aligned, for a 16-byte vector access of `N` elements (a compile
    /// error unless they are 16 bytes).
    #[inline(always)]
    #[track_caller]
    fn vector<const N: usize>(self, call: &'static CStr, index: usize) -> *mut T {
        const { assert!(N * size_of::<T>() == 16, "a vector access moves 16 bytes") };
        let end = index.saturating_add(N);
        if end > self.len {
            out_of_bounds(call, index, end, self.len);
        }
        // SAFETY: `index + n <= len`, inside the allocation.
        let address = unsafe { self.start.as_ptr().add(index) };
        if !(address as usize).is_multiple_of(16) {
            misaligned(call, address as usize);
        }
        address
    }

    /// The address of element `start`, once `start + (n - 1) × stride` is checked to be in bounds
    /// (no element when `n` is 0: then `start` may be the length).
    #[inline(always)]
    #[track_caller]
    fn strided(self, call: &'static CStr, start: usize, stride: usize, n: usize) -> *mut T {
        let last = match n.checked_sub(1) {
            None => start.min(self.len),
            Some(steps) => match steps.checked_mul(stride).and_then(|s| s.checked_add(start)) {
                Some(last) if last < self.len => last,
                _ => {
                    let end = steps.saturating_mul(stride).saturating_add(start);
                    out_of_bounds(call, start, end.saturating_add(1), self.len)
                }
            },
        };
        // SAFETY: `start <= last` (or `start` clamped to the length when nothing is accessed) is
        // inside or one past the allocation.
        unsafe { self.start.as_ptr().add(start.min(last)) }
    }
}

impl<T: Element> SymmetricSlice<T> {
    /// Writes `value` into element `index` on PE `pe` (`nvshmem_<T>_p`).
    #[track_caller]
    pub fn p(self, index: usize, value: T, pe: Pe) {
        let address = self.element(c"SymmetricSlice::p", index);
        // SAFETY: `address` is in bounds of a symmetric allocation of the same size on every PE
        // (the type's invariant), and `pe` is a PE of the job (`Pe`'s).
        unsafe { crate::rma::p(SymmetricPtr::from_raw(address), value, pe.index()) }
    }

    /// Reads element `index` on PE `pe` (`nvshmem_<T>_g`).
    #[track_caller]
    pub fn g(self, index: usize, pe: Pe) -> T {
        let address = self.element(c"SymmetricSlice::g", index);
        // SAFETY: as for `p`.
        unsafe { crate::rma::g(SymmetricPtr::from_raw(address), pe.index()) }
    }
}

impl<T: AtomicElement> SymmetricSlice<T> {
    /// Reads element `index` on PE `pe` atomically (`nvshmem_<T>_atomic_fetch`).
    #[inline]
    #[track_caller]
    pub fn atomic_fetch(self, index: usize, pe: Pe) -> T {
        let address = self.element(c"SymmetricSlice::atomic_fetch", index);
        // SAFETY: `address` is an element of a symmetric allocation of the same size on every PE
        // (a checked index, the type's invariant), and `pe` is a PE of the job (`Pe`'s). The
        // atomic is NVSHMEM's, a system-scope access to the element as the module docs describe.
        unsafe { crate::atomic::fetch(SymmetricPtr::from_raw(address), pe.index()) }
    }

    /// Writes `value` into element `index` on PE `pe` atomically (`nvshmem_<T>_atomic_set`);
    /// complete after [`crate::sync::quiet`].
    #[inline]
    #[track_caller]
    pub fn atomic_set(self, index: usize, value: T, pe: Pe) {
        let address = self.element(c"SymmetricSlice::atomic_set", index);
        // SAFETY: as for `atomic_fetch`.
        unsafe { crate::atomic::set(SymmetricPtr::from_raw(address), value, pe.index()) }
    }

    /// Writes `value` into element `index` on PE `pe` and returns the value before
    /// (`nvshmem_<T>_atomic_swap`).
    #[inline]
    #[track_caller]
    pub fn atomic_swap(self, index: usize, value: T, pe: Pe) -> T {
        let address = self.element(c"SymmetricSlice::atomic_swap", index);
        // SAFETY: as for `atomic_fetch`.
        unsafe { crate::atomic::swap(SymmetricPtr::from_raw(address), value, pe.index()) }
    }
}

impl<T: AtomicCompareSwap> SymmetricSlice<T> {
    /// Writes `value` into element `index` on PE `pe` if it holds `expected`; returns the value
    /// before either way (`nvshmem_<T>_atomic_compare_swap`).
    #[inline]
    #[track_caller]
    pub fn atomic_compare_swap(self, index: usize, expected: T, value: T, pe: Pe) -> T {
        let address = self.element(c"SymmetricSlice::atomic_compare_swap", index);
        // SAFETY: as for `atomic_fetch`.
        unsafe {
            crate::atomic::compare_swap(
                SymmetricPtr::from_raw(address),
                expected,
                value,
                pe.index(),
            )
        }
    }
}

impl<T: AtomicAdd> SymmetricSlice<T> {
    /// Adds `value` to element `index` on PE `pe` and returns the value before
    /// (`nvshmem_<T>_atomic_fetch_add`).
    #[inline]
    #[track_caller]
    pub fn atomic_fetch_add(self, index: usize, value: T, pe: Pe) -> T {
        let address = self.element(c"SymmetricSlice::atomic_fetch_add", index);
        // SAFETY: as for `atomic_fetch`.
        unsafe { crate::atomic::fetch_add(SymmetricPtr::from_raw(address), value, pe.index()) }
    }

    /// Adds `value` to element `index` on PE `pe` (`nvshmem_<T>_atomic_add`); complete after
    /// [`crate::sync::quiet`].
    #[inline]
    #[track_caller]
    pub fn atomic_add(self, index: usize, value: T, pe: Pe) {
        let address = self.element(c"SymmetricSlice::atomic_add", index);
        // SAFETY: as for `atomic_fetch`.
        unsafe { crate::atomic::add(SymmetricPtr::from_raw(address), value, pe.index()) }
    }
}

/// Read-modify-writes on this PE's own elements, by this GPU's threads: relaxed atomics of Rust's
/// memory model (`core::sync::atomic`), atomic with respect to every other access of the safe
/// layer on this PE. NVSHMEM documents its remote atomics as atomic only with respect to other
/// NVSHMEM atomics on the same variable: mixing these with the `atomic_*` methods on one element
/// can lose an update (a wrong value), never more.
impl<T: Element + LocalAtomic> SymmetricSlice<T> {
    /// Adds `value` (wrapping) to this PE's element `index` and returns the value before.
    #[inline]
    #[track_caller]
    pub fn local_fetch_add(self, index: usize, value: T) -> T {
        let address = self.element(c"SymmetricSlice::local_fetch_add", index);
        // SAFETY: in bounds (checked) and aligned (the type's invariant); an atomic access.
        unsafe { T::fetch_add_relaxed(address, value) }
    }

    /// Writes `value` into this PE's element `index` and returns the value before.
    #[inline]
    #[track_caller]
    pub fn local_swap(self, index: usize, value: T) -> T {
        let address = self.element(c"SymmetricSlice::local_swap", index);
        // SAFETY: as for `local_fetch_add`.
        unsafe { T::swap_relaxed(address, value) }
    }

    /// Writes `value` into this PE's element `index` if it holds `expected`; returns the value
    /// before either way.
    #[inline]
    #[track_caller]
    pub fn local_compare_swap(self, index: usize, expected: T, value: T) -> T {
        let address = self.element(c"SymmetricSlice::local_compare_swap", index);
        // SAFETY: as for `local_fetch_add`.
        unsafe { T::compare_swap_relaxed(address, expected, value) }
    }
}

impl SymmetricSlice<u64> {
    /// Element `index` as a signal word, for puts with signal and signal waits.
    #[track_caller]
    pub fn signal(self, index: usize) -> Signal {
        let address = self.element(c"SymmetricSlice::signal", index);
        Signal {
            // SAFETY: in bounds of a symmetric allocation (the type's invariant).
            word: unsafe { SymmetricPtr::from_raw(address) },
        }
    }
}

/// A symmetric `u64` signal word (`SymmetricSlice<u64>::signal`): what a put with signal updates
/// on the destination PE and what its receiver waits on.
#[derive(Debug, Clone, Copy)]
pub struct Signal {
    word: SymmetricPtr<u64>,
}

impl Signal {
    /// The word's symmetric address, for the raw tier.
    pub const fn as_symmetric_ptr(self) -> SymmetricPtr<u64> {
        self.word
    }

    /// Reads this PE's word (`nvshmem_signal_fetch`).
    pub fn fetch(self) -> u64 {
        // SAFETY: `word` is a symmetric `u64` (made from a checked `SymmetricSlice` index).
        unsafe { crate::signal::signal_fetch(self.word) }
    }

    /// Waits until this PE's word compares to `value` as `cmp` says, and returns the word; what
    /// the put that changed it carried is then visible (`nvshmem_signal_wait_until`). A condition
    /// that never holds hangs the kernel (debug builds trap after the module's time limit).
    pub fn wait_until(self, cmp: crate::Cmp, value: u64) -> u64 {
        // SAFETY: `word` is a symmetric `u64`; a wait that never ends is a hang, not a memory error.
        unsafe { crate::signal::signal_wait_until(self.word, cmp, value) }
    }

    /// Applies `op` with `value` to the word on PE `pe` (`nvshmemx_signal_op`).
    pub fn op(self, value: u64, op: crate::SignalOp, pe: Pe) {
        // SAFETY: `word` is a symmetric `u64` and `pe` a PE of the job.
        unsafe { crate::signal::signal_op(self.word, value, op, pe.index()) }
    }
}

/// `range`'s `start..end` over a slice of `len` elements (not yet checked against `len`).
fn bounds(range: &impl RangeBounds<usize>, len: usize) -> (usize, usize) {
    let start = match range.start_bound() {
        Bound::Included(&start) => start,
        Bound::Excluded(&start) => start.saturating_add(1),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&end) => end.saturating_add(1),
        Bound::Excluded(&end) => end,
        Bound::Unbounded => len,
    };
    (start, end)
}

/// Traps (on the host: panics) for `call`'s range `start..end` outside a slice of `len`.
#[cold]
#[track_caller]
pub(crate) fn out_of_bounds(call: &'static CStr, start: usize, end: usize, len: usize) -> ! {
    #[cfg(target_arch = "nvptx64")]
    crate::debug::out_of_bounds(call, start, end, len);
    #[cfg(not(target_arch = "nvptx64"))]
    panic!(
        "{}: range {start}..{end} is out of bounds for a symmetric slice of {len} elements",
        call.to_str().unwrap_or("?")
    )
}

/// Traps (on the host: panics) for `call`'s 16-byte vector access at an `address` that is not
/// 16-byte aligned.
#[cold]
#[track_caller]
fn misaligned(call: &'static CStr, address: usize) -> ! {
    #[cfg(target_arch = "nvptx64")]
    crate::debug::misaligned(call, address);
    #[cfg(not(target_arch = "nvptx64"))]
    panic!(
        "{}: address {address:#x} is not 16-byte aligned; start vectors at an index whose \
         address is a multiple of 16 (allocate with `alloc_aligned`)",
        call.to_str().unwrap_or("?")
    )
}

/// Traps (on the host: panics) for `call`'s transfer between slices of different lengths.
#[cold]
#[track_caller]
pub(crate) fn lengths_differ(call: &'static CStr, dest: usize, source: usize) -> ! {
    #[cfg(target_arch = "nvptx64")]
    crate::debug::lengths_differ(call, dest, source);
    #[cfg(not(target_arch = "nvptx64"))]
    panic!(
        "{}: the destination has {dest} elements but the source has {source}; take equal ranges \
         with `range`",
        call.to_str().unwrap_or("?")
    )
}

#[cfg(test)]
mod tests {
    use super::SymmetricSlice;

    fn slice(storage: &mut [u32]) -> SymmetricSlice<u32> {
        // SAFETY: host memory stands in for a symmetric allocation in these tests.
        unsafe { SymmetricSlice::from_raw_parts(storage.as_mut_ptr(), storage.len()) }
    }

    #[test]
    fn ranges_inside_the_slice_are_sub_slices() {
        let mut storage: Vec<u32> = (0..10).collect();
        let whole = slice(&mut storage);
        assert_eq!(whole.range(..).len(), 10);
        assert_eq!(whole.range(3..=4).read(1), 4);
        assert_eq!(whole.range(10..).len(), 0);
        let (start, end) = (4, 3);
        assert!(whole.get_range(start..end).is_none());
        assert!(whole.get_range(..11).is_none());
        assert!(whole.get_range(usize::MAX..).is_none());
    }

    #[test]
    #[should_panic(
        expected = "SymmetricSlice::range: range 8..12 is out of bounds for a symmetric slice of 10 elements"
    )]
    fn a_range_past_the_end_names_the_call_the_range_and_the_length() {
        let mut storage = [0u32; 10];
        slice(&mut storage).range(8..12);
    }

    #[test]
    #[should_panic(
        expected = "SymmetricSlice::write: range 3..4 is out of bounds for a symmetric slice of 3 elements"
    )]
    fn an_index_one_past_the_end_is_refused() {
        let mut storage = [0u32; 3];
        slice(&mut storage).write(3, 1);
    }

    #[test]
    fn strided_accesses_check_their_last_element_once() {
        let mut storage: Vec<u32> = (0..10).collect();
        let s = slice(&mut storage);
        assert_eq!(s.read_strided::<3>(1, 3), [1, 4, 7]);
        s.write_strided(0, 4, [40, 44, 48]);
        assert_eq!((s.read(0), s.read(4), s.read(8)), (40, 44, 48));
        assert_eq!(s.read_strided::<0>(10, 5), []);
    }

    #[test]
    #[should_panic(
        expected = "SymmetricSlice::read_strided: range 2..11 is out of bounds for a symmetric slice of 10 elements"
    )]
    fn a_strided_access_past_the_end_is_refused() {
        let mut storage = [0u32; 10];
        slice(&mut storage).read_strided::<3>(2, 4);
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn a_stride_that_overflows_is_refused() {
        let mut storage = [0u32; 10];
        slice(&mut storage).read_strided::<3>(1, usize::MAX / 2 + 1);
    }

    #[repr(C, align(16))]
    struct Aligned([u32; 12]);

    #[test]
    fn vectors_move_16_bytes_at_an_aligned_index() {
        let mut storage = Aligned(core::array::from_fn(|i| i as u32));
        let s = slice(&mut storage.0);
        assert_eq!(s.read_vector::<4>(4), [4, 5, 6, 7]);
        s.write_vector(8, [80, 90, 100, 110]);
        assert_eq!(s.read_strided::<4>(8, 1), [80, 90, 100, 110]);
        assert_eq!(s.read(7), 7);
    }

    #[test]
    #[should_panic(expected = "SymmetricSlice::read_vector: address")]
    fn a_vector_off_the_16_byte_grid_is_refused() {
        let mut storage = Aligned([0; 12]);
        slice(&mut storage.0).read_vector::<4>(1);
    }

    #[test]
    #[should_panic(
        expected = "SymmetricSlice::write_vector: range 10..14 is out of bounds for a symmetric slice of 12 elements"
    )]
    fn a_vector_past_the_end_is_refused() {
        let mut storage = Aligned([0; 12]);
        slice(&mut storage.0).write_vector(10, [0; 4]);
    }

    #[test]
    fn local_atomics_act_on_this_pes_element() {
        let mut storage = [5u32, 6];
        let s = slice(&mut storage);
        assert_eq!(s.local_fetch_add(1, 10), 6);
        assert_eq!(s.local_swap(0, 1), 5);
        assert_eq!(s.local_compare_swap(0, 1, 2), 1);
        assert_eq!(storage, [2, 16]);
    }

    #[test]
    #[should_panic(expected = "SymmetricSlice::local_fetch_add: range 2..3 is out of bounds")]
    fn a_local_atomic_past_the_end_is_refused() {
        let mut storage = [0u32; 2];
        slice(&mut storage).local_fetch_add(2, 1);
    }

    #[test]
    fn reads_and_writes_go_by_value() {
        let mut storage = [0u32; 3];
        let s = slice(&mut storage);
        s.write(2, 9);
        assert_eq!(s.read(2), 9);
        assert_eq!(storage, [0, 0, 9]);
    }
}
