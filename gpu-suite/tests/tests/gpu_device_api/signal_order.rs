//! Put with signal's ordering: the data has arrived when its signal is seen, checked by the kernel
//! as it runs, and the same check failing where the signal is sent first (the planted defect).

use super::layout::{self, prev};
use super::support::{IMAGE, elapsed_ms, init, launch, zeroed};
use std::time::Instant;

/// What the threads of `signal_order` found in one variant, summed over the block.
struct OrderCheck {
    /// Elements read after their signal.
    checked: u64,
    /// Elements that did not hold their round's value.
    stale: u64,
    /// The first stale element: round, index, value read.
    first_stale: Option<(u64, u64, u64)>,
}

/// Runs `signal_order` for every variant, `rounds` rounds each, with the data sent after the signal
/// where `signal_first`; returns this PE's number, the number of PEs and what each variant found.
fn signal_order_checks(signal_first: bool, rounds: u32) -> (i32, i32, Vec<OrderCheck>) {
    use layout::signal_order::*;
    let nvshmem = init();
    let (me, n) = (nvshmem.my_pe(), nvshmem.n_pes());
    let module = nvshmem.load_module(IMAGE).expect("load");
    let source = zeroed!(nvshmem, u64, ELEMENTS);
    let data = zeroed!(nvshmem, u64, SLOTS * ELEMENTS);
    let words = zeroed!(nvshmem, u64, VARIANTS * WORDS);
    let results = zeroed!(nvshmem, u64, RESULTS);
    let started = Instant::now();
    for variant in 0..VARIANTS as u32 {
        // The variants share `source` and `data`: none starts before every PE has read the last.
        nvshmem.barrier_all();
        launch(
            &nvshmem,
            &module,
            "signal_order",
            &[
                &variant,
                &rounds,
                &signal_first,
                &source.as_symmetric_ptr(),
                &data.as_symmetric_ptr(),
                &words.as_symmetric_ptr(),
                &results.as_symmetric_ptr(),
            ],
        );
    }
    println!(
        "PE {me}/{n}: {VARIANTS} variants of {rounds} rounds: {:.1} ms",
        elapsed_ms(started)
    );
    let checks = results
        .to_vec()
        .unwrap()
        .chunks(VARIANT_RESULTS)
        .map(|block| {
            let threads = || block.chunks(THREAD_RESULTS);
            OrderCheck {
                checked: threads().map(|thread| thread[0]).sum(),
                stale: threads().map(|thread| thread[1]).sum(),
                first_stale: threads()
                    .filter(|thread| thread[2] != u64::MAX)
                    .map(|thread| (thread[2], thread[3], thread[4]))
                    .min(),
            }
        })
        .collect();
    nvshmem.barrier_all();
    (me, n, checks)
}

/// One line for each variant whose reads found data that had not arrived with its signal, and for
/// each whose reads did not cover every element of every round.
fn signal_order_failures(me: i32, n: i32, rounds: u32, checks: &[OrderCheck]) -> Vec<String> {
    use layout::signal_order::*;
    checks
        .iter()
        .enumerate()
        .filter_map(|(variant, check)| {
            let (call, scope, op) = parts(variant);
            let name = format!("{}::{} with {}", SCOPES[scope], CALLS[call], OPS[op]);
            let expected = rounds as u64 * ELEMENTS as u64;
            if check.checked != expected {
                return Some(format!(
                    "{name}: {} elements checked, expected {expected}",
                    check.checked
                ));
            }
            let (round, index, got) = check.first_stale?;
            let want = value(variant, round, prev(me, n), index as usize);
            Some(format!(
                "{name}: {} of {} elements read after their signal were stale; first: round \
                 {round}, element {index}: {got:#x}, expected {want:#x}",
                check.stale, check.checked
            ))
        })
        .collect()
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn put_signal_data_has_arrived_when_the_signal_is_seen() {
    let rounds = layout::signal_order::ROUNDS;
    let (me, n, checks) = signal_order_checks(false, rounds);
    let failures = signal_order_failures(me, n, rounds, &checks);
    assert!(
        failures.is_empty(),
        "PE {me}: put-with-signal let the signal arrive before its data:\n{}",
        failures.join("\n")
    );
    println!(
        "PE {me}/{n}: put-with-signal ordering OK ({} variants × {rounds} rounds)",
        checks.len()
    );
}

/// The planted defect of the test above: the same kernel and verdict with the signal sent before
/// the data, which must find every read stale.
#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn put_signal_order_check_fails_when_the_signal_goes_first() {
    let rounds = layout::signal_order::PLANTED_ROUNDS;
    let (me, n, checks) = signal_order_checks(true, rounds);
    let all = rounds as u64 * layout::signal_order::ELEMENTS as u64;
    for (variant, check) in checks.iter().enumerate() {
        assert_eq!(
            check.stale, all,
            "PE {me}: variant {variant}: with the data sent after the signal, every read is stale"
        );
    }
    let failures = signal_order_failures(me, n, rounds, &checks);
    assert_eq!(failures.len(), checks.len(), "PE {me}: {failures:?}");
    println!(
        "PE {me}/{n}: the ordering check fails every variant when the signal goes first, as it \
         must; the first: {}",
        failures[0]
    );
}
