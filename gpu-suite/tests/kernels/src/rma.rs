//! RMA at every scope: put, get, their strided, byte, single-element and pointer forms.

use nvshmem_gpu::{SymmetricPtr, kernel};
// What the kernels use exists only on the GPU, like the kernels themselves.
#[cfg(target_arch = "nvptx64")]
use crate::{my_share, record, tid};
#[cfg(target_arch = "nvptx64")]
use device_api_layout::{self as layout, N, next};
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::{pe, rma, sync};

/// RMA at every scope: puts into the next PE, then gets from it (see [`layout::rma`]).
///
/// # Safety
/// Every buffer is symmetric with the sizes of [`layout::rma`] (`source`, `byte_source`: `N`;
/// `out`: `OUT_REGIONS × N`; `strided`: `STRIDED_REGIONS × N`, zeroed; `bytes`: `BYTE_REGIONS ×
/// N`, zeroed; `reals`: `REAL_REGIONS × N`; `reach`: `REACH_WORDS`); every PE launches it
/// cooperatively as one block of `THREADS` threads.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub unsafe fn rma_families(
    source: SymmetricPtr<i32>,
    out: SymmetricPtr<i32>,
    strided: SymmetricPtr<i32>,
    byte_source: SymmetricPtr<u8>,
    bytes: SymmetricPtr<u8>,
    reals: SymmetricPtr<f64>,
    reach: SymmetricPtr<i32>,
) {
    let (me, n) = (pe::my_pe(), pe::n_pes());
    let to = next(me, n);
    let t = tid();
    let warp0 = t < 32;
    // SAFETY: the buffers have the documented sizes on every PE, so every offset below is in
    // bounds; `to` is a valid PE; warp- and block-scope calls are reached by the whole warp 0 or
    // the whole block with the same arguments; the barriers are reached by the whole block on every
    // PE.
    unsafe {
        if t == 0 {
            rma::put(out, source.as_ptr(), N, to);
            rma::iput(strided, source.as_ptr(), 2, 1, N / 2, to);
            let (offset, length) = layout::rma::BYTE_SPANS[0];
            rma::putmem(
                bytes.add(offset),
                byte_source.as_ptr().add(offset),
                length,
                to,
            );
        }
        if warp0 {
            rma::warp::put_nbi(out.add(N), source.as_ptr(), N, to);
            rma::warp::iput(strided.add(N), source.as_ptr(), 1, 2, N / 2, to);
            let (offset, length) = layout::rma::BYTE_SPANS[1];
            rma::warp::putmem_nbi(
                bytes.add(N + offset),
                byte_source.as_ptr().add(offset),
                length,
                to,
            );
        }
        // ANCHOR: rma_block_put
        rma::block::put(out.add(2 * N), source.as_ptr(), N, to);
        rma::block::put_nbi(out.add(3 * N), source.as_ptr(), N, to);
        // ANCHOR_END: rma_block_put
        let (offset, length) = layout::rma::BYTE_SPANS[2];
        rma::block::putmem(
            bytes.add(2 * N + offset),
            byte_source.as_ptr().add(offset),
            length,
            to,
        );
        // ANCHOR: rma_p
        for i in my_share(N) {
            rma::p(reals.add(i), layout::rma::p_value(me, i), to);
        }
        // ANCHOR_END: rma_p
        // ANCHOR: rma_ptr
        let direct = rma::ptr(reals.add(2 * N), to);
        if let Some(peer) = direct {
            for i in my_share(N) {
                core::ptr::write_volatile(peer.as_ptr().add(i), layout::rma::direct_value(me, i));
            }
        }
        // ANCHOR_END: rma_ptr
        if t == 0 {
            record(reach, 0, direct.is_some() as i32);
            let own = rma::ptr(reals, me).map(|p| p.as_ptr());
            record(reach, 1, (own == Some(reals.as_ptr())) as i32);
        }
        // ANCHOR: rma_quiet_barrier
        sync::quiet();
        sync::barrier_all_block();
        // ANCHOR_END: rma_quiet_barrier

        if t == 0 {
            rma::get(out.add(4 * N).as_ptr(), source, N, to);
            rma::get_nbi(out.add(7 * N).as_ptr(), source, N, to);
            rma::iget(strided.add(3 * N).as_ptr(), source, 1, 2, N / 2, to);
        }
        if warp0 {
            rma::warp::get(out.add(5 * N).as_ptr(), source, N, to);
        }
        rma::block::get_nbi(out.add(6 * N).as_ptr(), source, N, to);
        rma::block::iget(strided.add(2 * N).as_ptr(), source, 2, 3, N / 3, to);
        let (offset, length) = layout::rma::BYTE_SPANS[3];
        rma::block::getmem(
            bytes.add(3 * N + offset).as_ptr(),
            byte_source.add(offset),
            length,
            to,
        );
        // ANCHOR: rma_g
        for i in my_share(N) {
            *reals.add(N + i).as_ptr() = rma::g(reals.add(i), to);
        }
        // ANCHOR_END: rma_g
        sync::quiet();
        sync::barrier_all_block();
    }
}
