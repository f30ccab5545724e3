//! Kernels of the device-API GPU tests (`tests/gpu_device_api/`): one kernel per family of
//! NVSHMEM's device API that works with several PEs per GPU without MPS, a module each ([`rma`],
//! [`signals`], [`p2p`] synchronisation, [`atomics`], barriers over all PEs in [`world`], the
//! debugging timeouts in [`traps`], the safe layer in [`safe_atomics`]), each leaving results in
//! symmetric buffers that the host compares with `device_api_layout`'s expected values;
//! [`signal_order`], which checks in the kernel that put-with-signal's data is in place when its
//! signal is seen; and [`slot_reuse`], which checks that plain loads after a signal wait read that
//! data even where they read the same slot before.
//!
//! Every kernel but `slot_reuse` and `safe_atomics_and_grid` (`BLOCKS` blocks) runs as one block
//! of `THREADS` threads, launched cooperatively on every PE. Team barriers and collectives are in
//! `teams-kernels/`, a module of its own because NVSHMEM's collectives make large PTX that takes
//! long to JIT-compile.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

pub mod atomics;
pub mod p2p;
pub mod rma;
pub mod safe_atomics;
pub mod signal_order;
pub mod signals;
pub mod slot_reuse;
pub mod traps;
pub mod world;

#[cfg(target_arch = "nvptx64")]
use device_api_layout::THREADS;
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::{SymmetricPtr, thread};

/// This thread's rank in the block.
#[cfg(target_arch = "nvptx64")]
fn tid() -> usize {
    thread::rank_in_block() as usize
}

/// The elements `tid, tid + THREADS, …` below `count`: this thread's share of a block-wide loop.
#[cfg(target_arch = "nvptx64")]
fn my_share(count: usize) -> impl Iterator<Item = usize> {
    (tid()..count).step_by(THREADS as usize)
}

/// Writes `value` to word `slot` of a local result buffer.
///
/// # Safety
/// `results` holds more than `slot` elements.
#[cfg(target_arch = "nvptx64")]
unsafe fn record<T>(results: SymmetricPtr<T>, slot: usize, value: T) {
    // SAFETY: the caller's contract above; a plain local store.
    unsafe { *results.add(slot).as_ptr() = value };
}
