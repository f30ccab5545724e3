//! The facts of the kernel ABI that three crates of nvshmem-rs share, each defined once here:
//! `nvshmem-gpu` (the kernels' side), `nvshmem-host` (loads modules and launches kernels) and
//! `nvshmem-builder` (links the PTX).
//!
//! | fact | items | who relies on it |
//! |---|---|---|
//! | module globals found by name | [`DEVICE_CHECKS_SYMBOL`], [`MAPPED_SIGNAL_ADDS_SYMBOL`] | the GPU crate defines them, the builder keeps them visible, the host fills them |
//! | the device transport pin | [`PINNED_DEVICE_TRANSPORT_SYMBOL`], [`PINNABLE_RELEASES`], [`pinnable_offset`], [`PROXY_DEVICE_TRANSPORT`] | the builder pins NVSHMEM's device code and marks the module, the host checks NVSHMEM's choice |
//! | the device checks' settings | [`DeviceChecks`], [`DEFAULT_TIMEOUT_NS`] | the GPU crate reads them, the host writes them |
//! | kernel parameters | [`SymmetricPtr`], [`Team`], [`KernelParam`], [`SliceParam`] | the host passes them, kernels receive them |
//! | launch descriptors and signatures | [`KernelDescriptor`], [`SafeKernel`], [`ParamCode`], [`Signature`], [`SIGNATURE_SYMBOL_PREFIX`] | `#[kernel]` emits them, the builder keeps the signature globals visible, the host compares them before a typed launch |
//! | element types | [`ElementType`], [`for_each_element!`] | the device's typed calls and slices, the host's buffers passed as slices |
//! | operation codes | [`Cmp`], [`SignalOp`], the reduction operators of [`op`] | the same values on the device and in the host's on-stream calls |
//! | reduction tables | [`for_each_arith_reduce_element!`], [`for_each_bitwise_reduce_element!`], [`for_each_arith_reduce_op!`], [`for_each_bitwise_reduce_op!`] | the device's and the host's on-stream reductions, for the same (operator, type) pairs |
//!
//! Users meet these types through `nvshmem-gpu` and `nvshmem-host`, which re-export them.
#![no_std]

mod checks;
mod launch;
mod operations;
mod reduce;
mod symmetric;
mod team;

pub use checks::{
    DEFAULT_TIMEOUT_NS, DEVICE_CHECKS_SYMBOL, DeviceChecks, MAPPED_SIGNAL_ADDS_SYMBOL,
    PINNABLE_RELEASES, PINNED_DEVICE_TRANSPORT_SYMBOL, PROXY_DEVICE_TRANSPORT, pinnable_offset,
};
pub use launch::{
    ElementType, KernelDescriptor, KernelParam, LayoutCode, ParamCode, ParamCodeOf,
    SIGNATURE_SYMBOL_PREFIX, SafeKernel, Signature, SingleParam, SliceParam, encode_signature,
    signature_len, write_signature,
};
pub use operations::{Cmp, SignalOp};
pub use reduce::op;
pub use symmetric::SymmetricPtr;
pub use team::Team;
