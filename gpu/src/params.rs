//! What a kernel may take as parameters, and the launch descriptors `#[kernel]` emits, which let
//! the host check a launch's arguments against the kernel's signature at compile time (the traits
//! are `nvshmem_abi`'s, which the host shares; this module adds the slice's).
//!
//! A safe kernel (`#[kernel] pub fn`, no `unsafe`) may take only [`KernelParam`] types: values that
//! are valid whatever the host passes (numbers, `bool`, [`Team`](crate::Team)) and [`SymmetricSlice`]s, which
//! the host's typed launch makes from its symmetric buffers. A raw pointer or a [`SymmetricPtr`](crate::SymmetricPtr)
//! needs an `unsafe` kernel, whose launch states the contract.
//!
//! ```compile_fail
//! use nvshmem_gpu::{kernel, SymmetricPtr};
//! #[kernel]
//! pub fn takes_a_raw_pointer(data: SymmetricPtr<f32>) {}
//! ```

use crate::element::Element;
use crate::slice::SymmetricSlice;
use nvshmem_abi::{KernelParam, ParamCode, SliceParam};

// SAFETY: the host's typed launch makes slices only from live symmetric buffers allocated with the
// same size on every PE (the allocation check), borrowed until the kernel has finished, and passes
// one as the two words `SliceParam` names.
unsafe impl<T: Element> KernelParam for SymmetricSlice<T> {
    const CODE: ParamCode = ParamCode::slice_of(T::CODE);
    type Launch = SliceParam<T>;
}
