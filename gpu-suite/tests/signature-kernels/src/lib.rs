//! A hostile kernel crate, for the GPU tests of the typed launch's signature check
//! (`tests/gpu_signatures.rs`): with no `unsafe`, it makes its host build (whose launch descriptors
//! the runner names) and its device build (the PTX the runner loads) disagree on a kernel's
//! parameters. Unchecked, a launch would pass a `u8` slice as a `u64` one (writing eight times its
//! length) or a number as a slice's address (a write anywhere). Beside them, `fill_words`, whose
//! builds agree, shows that the check lets a consistent kernel through.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]
#![forbid(unsafe_code)]

#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::thread;
use nvshmem_gpu::{SymmetricSlice, kernel};

/// A word of `fill`'s slice: a byte in the host build, eight bytes in the device build.
#[cfg(not(target_arch = "nvptx64"))]
pub type Word = u8;
/// A word of `fill`'s slice: a byte in the host build, eight bytes in the device build.
#[cfg(target_arch = "nvptx64")]
pub type Word = u64;

/// Writes `value` into every element of `data`, whose element type the two builds see differently
/// (a typed launch must refuse it).
#[kernel]
pub fn fill(data: SymmetricSlice<Word>, value: u32) {
    for i in (thread::global_index_x()..data.len()).step_by(thread::grid_size_x()) {
        data.write(i, Word::from(value));
    }
}

/// Writes `value` into every element of `data`: the device build's parameter order.
#[cfg(target_arch = "nvptx64")]
#[kernel]
pub fn put_word(data: SymmetricSlice<u64>, value: u64) {
    for i in (thread::global_index_x()..data.len()).step_by(thread::grid_size_x()) {
        data.write(i, value);
    }
}

/// The host build's `put_word`: the same parameters in the other order (a typed launch must
/// refuse it). Only its descriptor exists in this build, as for every kernel.
#[cfg(not(target_arch = "nvptx64"))]
#[kernel]
pub fn put_word(value: u64, data: SymmetricSlice<u64>) {}

/// Writes `value` into every element of `data`; both builds agree.
#[kernel]
pub fn fill_words(data: SymmetricSlice<u64>, value: u64) {
    for i in (thread::global_index_x()..data.len()).step_by(thread::grid_size_x()) {
        data.write(i, value);
    }
}
