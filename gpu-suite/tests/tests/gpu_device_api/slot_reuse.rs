//! Signal waits as acquires: plain loads after `signal_wait_until` read the slot's new data, not
//! what the L1 cache kept (the defect planted by setting `DEVICE_API_PLANT_MISSING_ACQUIRE`).

use super::layout::{self, THREADS, prev};
use super::support::{IMAGE, elapsed_ms, init, zeroed};
use nvshmem_host::LaunchShape;
use std::time::Instant;

/// Set (to anything) to plant the defect that [`signal_wait_until_acquires_before_plain_loads`]
/// must find: its kernel then waits with NVSHMEM's own `nvshmem_signal_wait_until`, without the
/// acquire of `nvshmem-gpu`'s wrapper.
const PLANT_MISSING_ACQUIRE: &str = "DEVICE_API_PLANT_MISSING_ACQUIRE";

/// Several pipelines reuse their slots round after round, and the receiving blocks read each
/// slot with plain loads once its signal has arrived: every element must hold the round's value,
/// not the one this multiprocessor's L1 cache kept from the slot's last use.
#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn signal_wait_until_acquires_before_plain_loads() {
    use layout::slot_reuse::*;
    let planted = std::env::var_os(PLANT_MISSING_ACQUIRE).is_some();
    let nvshmem = init();
    let (me, n) = (nvshmem.my_pe(), nvshmem.n_pes());
    let module = nvshmem.load_module(IMAGE).expect("load");
    let source = zeroed!(nvshmem, u64, LANES * ELEMENTS);
    let data = zeroed!(nvshmem, u64, LANES * SLOTS * ELEMENTS);
    let words = zeroed!(nvshmem, u64, LANES * WORDS);
    let results = zeroed!(nvshmem, u64, RESULTS);
    nvshmem.barrier_all();
    let started = Instant::now();
    let kernel = module.kernel("slot_reuse").expect("the kernel exists");
    // SAFETY: the arguments are the kernel's, with the buffer sizes its documentation asks for,
    // and every PE launches it alike.
    unsafe {
        kernel.launch_cooperative(
            LaunchShape::linear(BLOCKS, THREADS),
            &[
                &planted,
                &ROUNDS,
                &source.as_symmetric_ptr(),
                &data.as_symmetric_ptr(),
                &words.as_symmetric_ptr(),
                &results.as_symmetric_ptr(),
            ],
        )
    }
    .expect("launching slot_reuse");
    nvshmem.synchronize().expect("running slot_reuse");
    let results = results.to_vec().unwrap();
    let threads = || results.chunks(THREAD_RESULTS);
    let checked: u64 = threads().map(|thread| thread[0]).sum();
    let stale: u64 = threads().map(|thread| thread[1]).sum();
    let first = threads()
        .enumerate()
        .filter(|(_, thread)| thread[2] != u64::MAX)
        .map(|(index, thread)| (thread[2], index / THREADS as usize, thread[3], thread[4]))
        .min();
    println!(
        "PE {me}/{n}: {LANES} lanes × {ROUNDS} rounds{}: {stale} of {checked} elements stale, \
         {:.1} ms",
        if planted {
            " with the acquire left out"
        } else {
            ""
        },
        elapsed_ms(started)
    );
    nvshmem.barrier_all();
    let expected = LANES as u64 * ROUNDS as u64 * ELEMENTS as u64;
    assert_eq!(checked, expected, "PE {me}: elements checked");
    if let Some((round, lane, index, got)) = first {
        let want = value(lane, round, prev(me, n), index as usize);
        panic!(
            "PE {me}: {stale} of {checked} elements read after their signal were stale; first: \
             lane {lane}, round {round}, element {index}: {got:#x}, expected {want:#x}"
        );
    }
}
