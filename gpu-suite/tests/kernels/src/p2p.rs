//! Point-to-point synchronisation: the waits and tests of every form.

use nvshmem_gpu::{SymmetricPtr, kernel};
// What the kernels use exists only on the GPU, like the kernels themselves.
#[cfg(target_arch = "nvptx64")]
use crate::{record, tid};
#[cfg(target_arch = "nvptx64")]
use device_api_layout::{self as layout, MAX_PES, prev};
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::{Cmp, p2p, pe, rma, sync};

/// Every PE sets its flag on every PE; then the waits and tests of every form, on `u64`, `i32` and
/// `i16` (`short`) flags (see [`layout::p2p`] for the result slots).
///
/// # Safety
/// `flags`, `flags32`, `flags16` hold `MAX_PES` zeroed symmetric elements, `results` `RESULTS`;
/// at most `MAX_PES` PEs; every PE launches it cooperatively as one block.
#[kernel]
pub unsafe fn p2p_families(
    flags: SymmetricPtr<u64>,
    flags32: SymmetricPtr<i32>,
    flags16: SymmetricPtr<i16>,
    results: SymmetricPtr<i64>,
) {
    let (me, n) = (pe::my_pe(), pe::n_pes());
    let count = n as usize;
    if tid() != 0 || count > MAX_PES {
        return;
    }
    let from = prev(me, n);
    let mut values = [0u64; MAX_PES];
    for (q, value) in values.iter_mut().enumerate() {
        *value = q as u64 + 1;
    }
    let wrong = values.map(|v| v + 1);
    let mut skip_all_but_last = [1i32; MAX_PES];
    skip_all_but_last[count - 1] = 0;
    let mut skip_first = [0i32; MAX_PES];
    skip_first[0] = 1;
    let mut indices = [usize::MAX; MAX_PES];
    let as_i64 = |found: Option<usize>| found.map_or(-1, |i| i as i64);
    // SAFETY: the buffers hold `MAX_PES ≥ n` elements on every PE; every PE is valid; the waits are
    // satisfied by the `p`s every PE makes before waiting; the slices have `MAX_PES ≥ n` entries.
    unsafe {
        // ANCHOR: wait_until_all
        for q in 0..n {
            rma::p(flags.add(me as usize), me as u64 + 1, q);
            rma::p(flags32.add(me as usize), me + 1, q);
            rma::p(flags16.add(me as usize), me as i16 + 1, q);
        }
        sync::quiet();
        p2p::wait_until_all(flags, count, None, Cmp::Ne, 0);
        // ANCHOR_END: wait_until_all
        p2p::wait_until_all(flags32, count, None, Cmp::Ge, 1);
        p2p::wait_until(flags16.add(from as usize), Cmp::Eq, from as i16 + 1);
        p2p::wait_until_all_vector(flags, count, None, Cmp::Eq, &values);
        let r = |slot, value| record(results, slot, value);
        r(
            0,
            as_i64(p2p::wait_until_any(
                flags,
                count,
                Some(&skip_all_but_last[..]),
                Cmp::Eq,
                n as u64,
            )),
        );
        r(
            1,
            as_i64(p2p::wait_until_any_vector(
                flags,
                count,
                Some(&skip_all_but_last[..]),
                Cmp::Eq,
                &values,
            )),
        );
        let found = p2p::wait_until_some(flags, count, &mut indices, None, Cmp::Ge, 1);
        r(2, found as i64);
        for (q, index) in indices.iter().take(count).enumerate() {
            r(layout::p2p::SOME_INDICES + q, *index as i64);
        }
        r(
            3,
            p2p::wait_until_some_vector(flags, count, &mut indices, None, Cmp::Eq, &values) as i64,
        );
        let own = flags.add(me as usize);
        r(4, p2p::test(own, Cmp::Eq, me as u64 + 1) as i64);
        r(5, p2p::test(own, Cmp::Gt, 1000) as i64);
        r(6, p2p::test_all(flags, count, None, Cmp::Ge, 1) as i64);
        r(7, p2p::test_all(flags, count, None, Cmp::Ge, 2) as i64);
        r(8, as_i64(p2p::test_any(flags, count, None, Cmp::Eq, 1)));
        r(9, as_i64(p2p::test_any(flags, count, None, Cmp::Eq, 999)));
        indices = [usize::MAX; MAX_PES];
        r(
            10,
            p2p::test_some(
                flags,
                count,
                &mut indices,
                Some(&skip_first[..]),
                Cmp::Ge,
                1,
            ) as i64,
        );
        r(17, indices[0] as i64);
        r(
            11,
            p2p::test_all_vector(flags, count, None, Cmp::Eq, &values) as i64,
        );
        r(
            12,
            as_i64(p2p::test_any_vector(flags, count, None, Cmp::Eq, &wrong)),
        );
        indices = [usize::MAX; MAX_PES];
        r(
            13,
            p2p::test_some_vector(flags, count, &mut indices, None, Cmp::Eq, &values) as i64,
        );
        for (q, index) in indices.iter().take(count).enumerate() {
            r(layout::p2p::SOME_VECTOR_INDICES + q, *index as i64);
        }
        r(
            14,
            p2p::test(flags16.add(me as usize), Cmp::Eq, me as i16 + 1) as i64,
        );
        r(15, p2p::test_all(flags32, count, None, Cmp::Ge, 1) as i64);
        p2p::wait_until_timeout(flags.add(from as usize), Cmp::Eq, from as u64 + 1, 1 << 40);
        r(16, 1);
        sync::barrier_all();
    }
}
