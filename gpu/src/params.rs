//! What a kernel may take as parameters, and the launch descriptors `#[kernel]` emits, which let
//! the host check a launch's arguments against the kernel's signature at compile time.
//!
//! A safe kernel (`#[kernel] pub fn`, no `unsafe`) may take only [`KernelParam`] types: values that
//! are valid whatever the host passes (numbers, `bool`, [`Team`]) and [`SymmetricSlice`]s, which
//! the host's typed launch makes from its symmetric buffers. A raw pointer or a [`SymmetricPtr`](crate::SymmetricPtr)
//! needs an `unsafe` kernel, whose launch states the contract.
//!
//! ```compile_fail
//! use nvshmem_gpu::{kernel, SymmetricPtr};
//! #[kernel]
//! pub fn takes_a_raw_pointer(data: SymmetricPtr<f32>) {}
//! ```

use crate::{SymmetricSlice, Team};

/// A type a safe kernel may take as a parameter: every value the host's typed launch can pass is
/// valid in safe code.
///
/// # Safety
/// Every value of the type that a launch through `nvshmem-host`'s typed API can produce upholds the
/// type's invariants on the device for the whole launch; its layout is the same on host and device.
#[diagnostic::on_unimplemented(
    message = "a safe kernel cannot take `{Self}` as a parameter",
    label = "not a safe kernel parameter",
    note = "safe kernels take numbers, `bool`, `Team` and `SymmetricSlice<T>`; for raw pointers or \
            `SymmetricPtr`, declare the kernel `pub unsafe fn` and state its contract"
)]
pub unsafe trait KernelParam: Copy {}

/// A [`KernelParam`] passed as one PTX parameter: all of them but [`SymmetricSlice`], which
/// `#[kernel]` passes as two (address and length) where its signature names it `SymmetricSlice<T>`.
///
/// # Safety
/// As for [`KernelParam`], and the host passes the value as one kernel parameter.
#[diagnostic::on_unimplemented(
    message = "a safe kernel cannot take `{Self}` as a parameter",
    label = "not a safe kernel parameter",
    note = "safe kernels take numbers, `bool`, `Team` and `SymmetricSlice<T>` (written so, not \
            through an alias); for raw pointers or `SymmetricPtr`, declare the kernel \
            `pub unsafe fn` and state its contract"
)]
pub unsafe trait SingleParam: KernelParam {}

macro_rules! plain_params {
    ($($ty:ty),*) => { $(
        // SAFETY: every bit pattern is a value, the layout is the same on host and device, and the
        // host passes it as one parameter.
        unsafe impl KernelParam for $ty {}
        // SAFETY: as above.
        unsafe impl SingleParam for $ty {}
    )* };
}
plain_params!(f32, f64, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);
// SAFETY: the host passes `bool` as one byte, 0 or 1.
unsafe impl KernelParam for bool {}
// SAFETY: as above.
unsafe impl SingleParam for bool {}
// SAFETY: the host's typed launch passes only teams it holds (predefined or split, not destroyed),
// as one parameter.
unsafe impl KernelParam for Team {}
// SAFETY: as above.
unsafe impl SingleParam for Team {}
// SAFETY: the host's typed launch makes slices only from live symmetric buffers allocated with the
// same size on every PE (the allocation check), borrowed until the kernel has finished.
unsafe impl<T: crate::Element> KernelParam for SymmetricSlice<T> {}

/// The launch descriptor of a kernel, which `#[kernel]` emits beside it (a unit struct named after
/// the kernel in `UpperCamelCase`): its PTX entry name and parameter types.
///
/// # Safety
/// `NAME` is the PTX entry of a kernel whose parameters are `Params`, in order.
pub unsafe trait KernelDescriptor {
    /// The PTX entry name.
    const NAME: &'static str;
    /// The parameter types, as a tuple.
    type Params;
}

/// A kernel declared without `unsafe`, all of whose parameters are [`KernelParam`]s: launching it
/// through the host's typed API is safe.
///
/// # Safety
/// The kernel's body is safe code (`#[kernel]` implements it only for `pub fn` kernels).
pub unsafe trait SafeKernel: KernelDescriptor {}
