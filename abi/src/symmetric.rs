//! Addresses in the symmetric heap.

use core::fmt;

/// The address of `T` values in NVSHMEM's symmetric heap: the same offset is valid on every PE.
///
/// NVSHMEM's remote calls name the remote object by its local symmetric address; a private device
/// pointer or a host pointer there is undefined behaviour. This type marks the difference: the host
/// crate creates it from `nvshmem_malloc`, kernels receive it as a parameter, and `nvshmem-gpu`'s `rma` functions
/// take it where NVSHMEM needs a symmetric address. It is `#[repr(transparent)]` over `*mut T`, so a
/// kernel parameter of this type is a plain pointer in PTX.
///
/// ```
/// use nvshmem_abi::SymmetricPtr;
/// let mut storage = [0f32; 4];
/// // SAFETY: for the example only; real ones come from the host crate's symmetric buffers.
/// let ptr = unsafe { SymmetricPtr::from_raw(storage.as_mut_ptr()) };
/// // SAFETY: 2 < 4 elements.
/// assert_eq!(unsafe { ptr.add(2) }.as_ptr(), storage[2..].as_mut_ptr());
/// ```
#[repr(transparent)]
pub struct SymmetricPtr<T> {
    ptr: *mut T,
}

impl<T> SymmetricPtr<T> {
    /// Wraps a symmetric address.
    ///
    /// # Safety
    /// `ptr` must point into NVSHMEM's symmetric heap (returned by `nvshmem_malloc`/`calloc`/`align`
    /// on every PE in the same order, or offset from such an address), for as long as the value is
    /// used.
    pub const unsafe fn from_raw(ptr: *mut T) -> Self {
        SymmetricPtr { ptr }
    }

    /// The local address.
    pub const fn as_ptr(self) -> *mut T {
        self.ptr
    }

    /// The same address as a symmetric address of `U`s (for the byte functions, or to reinterpret
    /// a buffer); alignment for `U` is the user's to keep.
    pub const fn cast<U>(self) -> SymmetricPtr<U> {
        SymmetricPtr {
            ptr: self.ptr.cast(),
        }
    }

    /// The address `count` elements further on.
    ///
    /// # Safety
    /// As for `pointer::add`: the result must stay inside the same symmetric allocation.
    pub const unsafe fn add(self, count: usize) -> Self {
        // SAFETY: the caller keeps the offset inside the allocation, which is symmetric.
        unsafe { SymmetricPtr::from_raw(self.ptr.add(count)) }
    }
}

impl<T> Clone for SymmetricPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for SymmetricPtr<T> {}

impl<T> fmt::Debug for SymmetricPtr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SymmetricPtr({:p})", self.ptr)
    }
}

impl<T> PartialEq for SymmetricPtr<T> {
    fn eq(&self, other: &Self) -> bool {
        self.ptr == other.ptr
    }
}

impl<T> Eq for SymmetricPtr<T> {}
