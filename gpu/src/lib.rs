//! The NVSHMEM device API for kernels written in Rust and compiled to PTX.
//!
//! A kernel crate (`crate-type = ["cdylib"]`, built by `nvshmem-builder` for `nvptx64-nvidia-cuda`)
//! depends on this crate and writes kernels with [`kernel`]:
//!
//! ```ignore
//! #![cfg_attr(target_arch = "nvptx64", no_std)]
//! #![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]
//! use nvshmem_gpu::{kernel, pe, rma, sync, thread, SymmetricPtr};
//!
//! /// Every PE writes `n` floats into the next PE's `dest`.
//! #[kernel]
//! pub unsafe fn shift(source: SymmetricPtr<f32>, dest: SymmetricPtr<f32>, n: usize) {
//!     if thread::global_index_x() == 0 {
//!         let next = (pe::my_pe() + 1) % pe::n_pes();
//!         // SAFETY: both buffers hold `n` elements on every PE, and `next` is a valid PE.
//!         unsafe { rma::put(dest, source.as_ptr(), n, next) };
//!         // SAFETY: every thread of every PE that reaches this point calls it (cooperative launch).
//!         unsafe { sync::barrier_all() };
//!     }
//! }
//! ```
//!
//! # Layout
//! One module per concept, mirroring the sections of NVSHMEM's API reference:
//!
//! | module | NVSHMEM section | contents |
//! |---|---|---|
//! | `thread` | (CUDA built-ins) | thread, block and grid indices, `__syncthreads` (GPU target only) |
//! | [`pe`] | Library setup, exit, and query | [`pe::my_pe`], [`pe::n_pes`] |
//! | [`rma`] | Remote memory access | typed `put`/`get`/`p`/`g`, `_nbi` forms, [`rma::warp`] and [`rma::block`] scopes |
//! | [`sync`] | Memory ordering, barriers | `quiet`, `fence`, `barrier_all`, `sync_all` at thread/warp/block scope |
//! | [`ffi`] | all of the above | the C functions under their C names (`nvshmem_float_put`, …) |
//!
//! Typed calls are generic over [`Element`], implemented for `f32`, `f64`, `i8`…`i64`, `u8`…`u64`,
//! `isize` and `usize`, each mapped to the NVSHMEM type name in one table (`for_each_element!` in `element.rs`).
//! Adding a type or an operation is one line in that table or in the operation's declaration.
//!
//! # Contract
//! NVSHMEM calls are `unsafe fn`s: the caller guarantees what NVSHMEM's API reference requires (valid
//! PE numbers, symmetric destinations allocated on every PE, collective calls reached by every PE).
//! Each function's `# Safety` section lists its conditions. Symmetric addresses travel as
//! [`SymmetricPtr`], which only the host crate creates from `nvshmem_malloc`, so passing a private or
//! host pointer where NVSHMEM needs a symmetric one is a type error.
//!
//! The NVSHMEM functions themselves come from NVSHMEM's device bitcode, which the builder links in;
//! code that calls them can only run in a kernel built that way.
#![cfg_attr(not(test), no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(stdarch_nvptx))]
#![warn(missing_docs)]

pub use nvshmem_macros::kernel;

mod element;
pub mod ffi;
#[cfg(all(target_arch = "nvptx64", feature = "panic-handler"))]
mod panic;
pub mod pe;
pub mod rma;
mod symmetric;
pub mod sync;
pub mod thread;

pub use element::Element;
pub use symmetric::SymmetricPtr;
