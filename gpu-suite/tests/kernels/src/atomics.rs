//! Every atomic on every element type, from every PE to PE 0.

use nvshmem_gpu::{SymmetricPtr, kernel};
// What the kernels use exists only on the GPU, like the kernels themselves.
#[cfg(target_arch = "nvptx64")]
use crate::{record, tid};
#[cfg(target_arch = "nvptx64")]
use device_api_layout::{self as layout, MAX_PES};
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::{atomic, pe, rma, sync};

/// Every PE applies every atomic to PE 0's variables and sends what it fetched to PE 0's
/// `tickets` (see [`layout::atomic`]).
///
/// # Safety
/// The variable buffers hold the counts of [`layout::atomic`], zeroed and symmetric; `tickets`
/// `TICKETS × MAX_PES`, `results` `RESULTS`; at most `MAX_PES` PEs; every PE launches it
/// cooperatively as one block.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub unsafe fn atomic_families(
    ints: SymmetricPtr<i32>,
    longs: SymmetricPtr<i64>,
    uints: SymmetricPtr<u32>,
    ulongs: SymmetricPtr<u64>,
    sizes: SymmetricPtr<usize>,
    floats: SymmetricPtr<f32>,
    doubles: SymmetricPtr<f64>,
    isizes: SymmetricPtr<isize>,
    tickets: SymmetricPtr<i64>,
    results: SymmetricPtr<i64>,
) {
    use layout::atomic::ticket;
    let me = pe::my_pe();
    if tid() != 0 || pe::n_pes() as usize > MAX_PES {
        return;
    }
    let value = me + 1;
    // SAFETY: every offset is below the documented sizes; PE 0 exists; one thread per PE reaches
    // the barriers.
    unsafe {
        let send = |kind: usize, fetched: i64| {
            rma::p(tickets.add(kind * MAX_PES + me as usize), fetched, 0);
        };
        // Phase 1.
        send(ticket::INT_FETCH_ADD, atomic::fetch_add(ints, 1, 0) as i64);
        atomic::inc(ints.add(1), 0);
        send(
            ticket::INT_FETCH_INC,
            atomic::fetch_inc(ints.add(2), 0) as i64,
        );
        atomic::add(ints.add(3), value, 0);
        send(
            ticket::INT_COMPARE_SWAP,
            atomic::compare_swap(ints.add(4), 0, value, 0) as i64,
        );
        send(ticket::INT_SWAP, atomic::swap(ints.add(5), value, 0) as i64);
        atomic::set(ints.add(6), 42, 0);
        send(
            ticket::INT_FETCH_OR,
            atomic::fetch_or(ints.add(7), 1 << me, 0) as i64,
        );
        atomic::xor(ints.add(8), 1 << me, 0);
        atomic::or(ints.add(9), 0xFF, 0);
        atomic::or(ints.add(10), 0xF0F0, 0);
        send(
            ticket::INT_FETCH_XOR,
            atomic::fetch_xor(ints.add(11), value, 0) as i64,
        );

        send(
            ticket::LONG_FETCH_ADD,
            atomic::fetch_add(longs, 1i64 << 33, 0) >> 33,
        );
        atomic::inc(longs.add(1), 0);
        send(
            ticket::LONG_COMPARE_SWAP,
            atomic::compare_swap(longs.add(2), 0, value as i64, 0),
        );
        atomic::or(longs.add(3), 1i64 << (32 + me), 0);

        send(
            ticket::UINT_FETCH_ADD,
            (atomic::fetch_add(uints, 3u32, 0) / 3) as i64,
        );
        atomic::or(uints.add(1), 1u32 << me, 0);

        atomic::add(ulongs, 1u64 << 40, 0);
        send(
            ticket::ULONG_FETCH_INC,
            atomic::fetch_inc(ulongs.add(1), 0) as i64,
        );
        send(
            ticket::ULONG_FETCH_XOR,
            (atomic::fetch_xor(ulongs.add(2), 1u64 << (40 + me), 0) >> 40) as i64,
        );

        atomic::fetch_add(sizes, 1usize, 0);
        send(
            ticket::SIZE_COMPARE_SWAP,
            atomic::compare_swap(sizes.add(1), 0, value as usize, 0) as i64,
        );

        atomic::set(floats, 1.5f32, 0);
        send(
            ticket::FLOAT_SWAP,
            atomic::swap(floats.add(1), value as f32, 0) as i64,
        );
        atomic::set(doubles, 2.25f64, 0);

        send(
            ticket::ISIZE_COMPARE_SWAP,
            atomic::compare_swap(isizes, 0, -(value as isize), 0) as i64,
        );
        send(
            ticket::ISIZE_SWAP,
            atomic::swap(isizes.add(1), -(value as isize), 0) as i64,
        );
        sync::quiet();
        sync::barrier_all();

        // Phase 2: clear this PE's bits of what phase 1 set.
        atomic::and(ints.add(9), !(1 << me), 0);
        send(
            ticket::INT_FETCH_AND,
            atomic::fetch_and(ints.add(10), !(1 << (4 + me)), 0) as i64,
        );
        sync::quiet();
        sync::barrier_all();

        // Phase 3: everyone reads the finals.
        record(results, 0, atomic::fetch(ints.add(6), 0) as i64);
        record(results, 1, atomic::fetch(floats, 0).to_bits() as i64);
        record(results, 2, atomic::fetch(doubles, 0).to_bits() as i64);
        record(results, 3, atomic::fetch(longs, 0));
        record(results, 4, atomic::fetch(sizes, 0) as i64);
        record(results, 5, atomic::fetch(ulongs, 0) as i64);
        record(results, 6, atomic::fetch(isizes, 0) as i64);
        record(results, 7, atomic::fetch(uints, 0) as i64);
        sync::barrier_all();
    }
}
