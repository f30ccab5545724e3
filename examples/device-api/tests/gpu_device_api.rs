//! GPU tests of the device API (`nvshmem-gpu`) and of the host's teams and on-stream operations:
//! one test per family, each checking the values the kernels of `examples/device-api/kernels` and
//! `examples/device-api-teams/kernels` leave behind, a test of put-with-signal's ordering that
//! the kernel checks as it runs, beside the same check with a planted defect, and a test that plain
//! loads after a signal wait read reused slots' new data (its defect planted by setting
//! `DEVICE_API_PLANT_MISSING_ACQUIRE`). They need a GPU and
//! NVSHMEM, so they are `#[ignore]`d here; `gpu-suite/cases/30-device-api.sh` runs each in its own
//! set of processes at 2 and 4 PEs on one GPU.
//!
//! - Tests named `full_mpg_*` need NVSHMEM's full multi-PE-per-GPU mode (team splits, team
//!   barriers, collectives): MPS running and `CUDA_MPS_ACTIVE_THREAD_PERCENTAGE` ≤ 100 / PEs in
//!   every PE's environment. They fail with a message saying so otherwise.
//! - Tests named `trap_*` check the debugging timeouts. Started alone (not as a PE), such a test
//!   relaunches itself on `DEVICE_API_TRAP_PES` PEs (default 2) through the launcher and passes when
//!   that job fails, promptly, with the device's message; as a PE it runs the kernel that traps.
//! - The others run anywhere several PEs share a GPU, with or without MPS.

#[path = "../kernels/src/layout.rs"]
#[allow(dead_code)]
mod layout;

use layout::{MAX_PES, N, THREADS, next, prev};
use nvshmem_host::{
    Bootstrap, Cmp, Error, KernelArg, LaunchConfig, Module, Nvshmem, SignalAdds, SignalOp,
    StreamOperations as _, SymmetricBuffer, Team, op,
};
use std::fmt::Debug;
use std::time::{Duration, Instant};

/// Whether this file is compiled as `tests/gpu_device_api_nvshmem_only.rs`'s module, which runs
/// these tests on the kernels built with `nvshmem-gpu`'s load/store path off.
const NVSHMEM_ONLY: bool = matches!(
    env!("CARGO_CRATE_NAME").as_bytes(),
    b"gpu_device_api_nvshmem_only"
);
const PTX: &str = if NVSHMEM_ONLY {
    include_str!(env!("DEVICE_API_KERNELS_NVSHMEM_ONLY_PTX"))
} else {
    include_str!(env!("DEVICE_API_KERNELS_PTX"))
};
const TEAMS_PTX: &str = if NVSHMEM_ONLY {
    include_str!(env!("DEVICE_API_TEAMS_KERNELS_NVSHMEM_ONLY_PTX"))
} else {
    include_str!(env!("DEVICE_API_TEAMS_KERNELS_PTX"))
};
const NVSHMEM_VERSION: &str = env!("DEVICE_API_KERNELS_NVSHMEM_VERSION");

/// The exit status of a PE whose kernel trapped as the `trap_*` tests expect.
const TRAPPED: i32 = 75;
/// The cycle budget of the `trap_*` kernels: about a second.
const TRAP_BUDGET_CYCLES: u64 = 1 << 31;

/// Launches `name` cooperatively as one block of `THREADS` threads and waits for it.
fn launch(nvshmem: &Nvshmem, module: &Module<'_>, name: &str, args: &[&dyn KernelArg]) {
    let kernel = module.kernel(name).expect("the kernel exists");
    // SAFETY: every caller passes the arguments the kernel declares, with the buffer sizes its
    // documentation asks for, and every PE (of the team) launches the same kernels in order.
    unsafe { kernel.launch_cooperative(LaunchConfig::linear(1, THREADS), args) }
        .unwrap_or_else(|error| panic!("launching {name}: {error}"));
    nvshmem
        .synchronize()
        .unwrap_or_else(|error| panic!("running {name}: {error}"));
}

/// Milliseconds since `started` (the teams test prints its phases' times for the suite logs).
fn elapsed_ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1e3
}

/// Panics with the first mismatches if `got[i] != expected(i)` for some `i`.
fn check<T: PartialEq + Debug>(what: &str, me: i32, got: &[T], expected: impl Fn(usize) -> T) {
    let wrong: Vec<String> = got
        .iter()
        .enumerate()
        .filter_map(|(i, value)| {
            let want = expected(i);
            (*value != want).then(|| format!("[{i}] = {value:?}, expected {want:?}"))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "PE {me}: {what}: {} wrong, first: {}",
        wrong.len(),
        wrong.iter().take(6).cloned().collect::<Vec<_>>().join("; ")
    );
}

/// A zeroed symmetric buffer of `$len` `$t`s.
macro_rules! zeroed {
    ($nvshmem:expr, $t:ty, $len:expr) => {
        $nvshmem
            .alloc_zeroed::<$t>($len)
            .expect("symmetric allocation")
    };
}

/// A symmetric buffer of `$len` elements, element `i` being `$value(i)`.
macro_rules! filled {
    ($nvshmem:expr, $len:expr, $value:expr) => {{
        let mut buffer = $nvshmem.alloc($len).expect("symmetric allocation");
        buffer
            .copy_from_host(&(0..$len).map($value).collect::<Vec<_>>())
            .expect("copy to the GPU");
        buffer
    }};
}

fn init() -> Nvshmem {
    let nvshmem = Nvshmem::init().expect("NVSHMEM initialises");
    assert!(
        nvshmem.n_pes() as usize <= MAX_PES,
        "the kernels handle at most {MAX_PES} PEs"
    );
    nvshmem
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn rma_put_get_p_g_strided_bytes_and_ptr_move_the_right_values() {
    use layout::rma::*;
    let nvshmem = init();
    let (me, n) = (nvshmem.my_pe(), nvshmem.n_pes());
    let module = nvshmem.load_module(PTX).expect("load");
    let sent = filled!(nvshmem, N, |i| source(me, i));
    let out = zeroed!(nvshmem, i32, OUT_REGIONS * N);
    let strided = zeroed!(nvshmem, i32, STRIDED_REGIONS * N);
    let byte_source = filled!(nvshmem, N, |i| byte(me, i));
    let bytes = zeroed!(nvshmem, u8, BYTE_REGIONS * N);
    let reals = zeroed!(nvshmem, f64, REAL_REGIONS * N);
    let reach = zeroed!(nvshmem, i32, REACH_WORDS);
    nvshmem.barrier_all();
    launch(
        &nvshmem,
        &module,
        "rma_families",
        &[
            &sent.as_symmetric_ptr(),
            &out.as_symmetric_ptr(),
            &strided.as_symmetric_ptr(),
            &byte_source.as_symmetric_ptr(),
            &bytes.as_symmetric_ptr(),
            &reals.as_symmetric_ptr(),
            &reach.as_symmetric_ptr(),
        ],
    );
    let reach = reach.to_vec().unwrap();
    assert_eq!(
        reach,
        [1, 1],
        "PE {me}: rma::ptr must reach the next PE on the same GPU and return the local address for this PE"
    );
    let out = out.to_vec().unwrap();
    for region in 0..OUT_REGIONS {
        check(
            &format!("out region {region}"),
            me,
            &out[region * N..][..N],
            |i| expected_out(me, n, region, i),
        );
    }
    let strided = strided.to_vec().unwrap();
    for region in 0..STRIDED_REGIONS {
        check(
            &format!("strided region {region}"),
            me,
            &strided[region * N..][..N],
            |i| expected_strided(me, n, region, i),
        );
    }
    let bytes = bytes.to_vec().unwrap();
    for region in 0..BYTE_REGIONS {
        check(
            &format!("bytes region {region}"),
            me,
            &bytes[region * N..][..N],
            |i| expected_byte(me, n, region, i),
        );
    }
    let reals = reals.to_vec().unwrap();
    for region in 0..REAL_REGIONS {
        check(
            &format!("reals region {region}"),
            me,
            &reals[region * N..][..N],
            |i| expected_real(me, n, region, i),
        );
    }
    println!("PE {me}/{n}: RMA families OK");
    nvshmem.barrier_all();
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn signal_families_deliver_data_and_count_every_pe() {
    use layout::signal::*;
    let nvshmem = init();
    let (me, n) = (nvshmem.my_pe(), nvshmem.n_pes());
    let module = nvshmem.load_module(PTX).expect("load");
    let sent = filled!(nvshmem, N, |i| source(me, i));
    let data = zeroed!(nvshmem, u64, DATA_REGIONS * N);
    let signals = zeroed!(nvshmem, u64, SIGNALS);
    let results = zeroed!(nvshmem, u64, RESULTS);
    nvshmem.barrier_all();
    launch(
        &nvshmem,
        &module,
        "signal_families",
        &[
            &sent.as_symmetric_ptr(),
            &data.as_symmetric_ptr(),
            &signals.as_symmetric_ptr(),
            &results.as_symmetric_ptr(),
        ],
    );
    let data = data.to_vec().unwrap();
    for region in 0..DATA_REGIONS {
        check(
            &format!("data region {region}"),
            me,
            &data[region * N..][..N],
            |i| source(prev(me, n), i),
        );
    }
    let expected = expected_results(me, n);
    check("results", me, &results.to_vec().unwrap(), |i| expected[i]);
    println!("PE {me}/{n}: signal families OK");
    nvshmem.barrier_all();
}

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
    let module = nvshmem.load_module(PTX).expect("load");
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

/// Every PE of the suite's jobs shares one GPU, so every PE maps every other and NVSHMEM adds to
/// signal words through the mapping: the host must let the load/store path's kernels do the same
/// (the NVSHMEM-only build has no such path).
#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn load_store_kernels_add_signals_through_the_mapping_where_nvshmem_does() {
    let nvshmem = init();
    let me = nvshmem.my_pe();
    let module = nvshmem.load_module(PTX).expect("load");
    let expected = if NVSHMEM_ONLY {
        SignalAdds::NoLoadStorePath
    } else {
        SignalAdds::Mapped
    };
    assert_eq!(*module.signal_adds(), expected, "PE {me}");
    println!("PE {me}: signal additions as NVSHMEM {NVSHMEM_VERSION} would make them");
    nvshmem.barrier_all();
}

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
    let module = nvshmem.load_module(PTX).expect("load");
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
            LaunchConfig::linear(BLOCKS, THREADS),
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

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn waits_and_tests_of_every_form_see_every_pes_flag() {
    let nvshmem = init();
    let (me, n) = (nvshmem.my_pe(), nvshmem.n_pes());
    let module = nvshmem.load_module(PTX).expect("load");
    let flags = zeroed!(nvshmem, u64, MAX_PES);
    let flags32 = zeroed!(nvshmem, i32, MAX_PES);
    let flags16 = zeroed!(nvshmem, i16, MAX_PES);
    let results = zeroed!(nvshmem, i64, layout::p2p::RESULTS);
    nvshmem.barrier_all();
    launch(
        &nvshmem,
        &module,
        "p2p_families",
        &[
            &flags.as_symmetric_ptr(),
            &flags32.as_symmetric_ptr(),
            &flags16.as_symmetric_ptr(),
            &results.as_symmetric_ptr(),
        ],
    );
    let expected = layout::p2p::expected_results(me, n);
    check("results", me, &results.to_vec().unwrap(), |i| expected[i]);
    check("flags", me, &flags.to_vec().unwrap()[..n as usize], |q| {
        q as u64 + 1
    });
    println!("PE {me}/{n}: wait and test families OK");
    nvshmem.barrier_all();
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn atomics_apply_exactly_once_per_pe() {
    use layout::atomic::{ticket::*, *};
    let nvshmem = init();
    let (me, n) = (nvshmem.my_pe(), nvshmem.n_pes());
    let module = nvshmem.load_module(PTX).expect("load");
    let ints = zeroed!(nvshmem, i32, INTS);
    let longs = zeroed!(nvshmem, i64, LONGS);
    let uints = zeroed!(nvshmem, u32, UINTS);
    let ulongs = zeroed!(nvshmem, u64, ULONGS);
    let sizes = zeroed!(nvshmem, usize, SIZES);
    let floats = zeroed!(nvshmem, f32, FLOATS);
    let doubles = zeroed!(nvshmem, f64, DOUBLES);
    let isizes = zeroed!(nvshmem, isize, ISIZES);
    let tickets = zeroed!(nvshmem, i64, TICKETS * MAX_PES);
    let results = zeroed!(nvshmem, i64, RESULTS);
    nvshmem.barrier_all();
    launch(
        &nvshmem,
        &module,
        "atomic_families",
        &[
            &ints.as_symmetric_ptr(),
            &longs.as_symmetric_ptr(),
            &uints.as_symmetric_ptr(),
            &ulongs.as_symmetric_ptr(),
            &sizes.as_symmetric_ptr(),
            &floats.as_symmetric_ptr(),
            &doubles.as_symmetric_ptr(),
            &isizes.as_symmetric_ptr(),
            &tickets.as_symmetric_ptr(),
            &results.as_symmetric_ptr(),
        ],
    );
    let (n64, m) = (n as i64, mask(n));
    let results = results.to_vec().unwrap();
    check("fetched finals", me, &results[..RESULTS - 2], |i| {
        [
            42,
            1.5f32.to_bits() as i64,
            2.25f64.to_bits() as i64,
            n64 << 33,
            n64,
            n64 << 40,
        ][i]
    });
    assert!(
        (-n64..=-1).contains(&results[6]),
        "PE {me}: isize compare-swap winner {}",
        results[6]
    );
    assert_eq!(results[7], 3 * n64, "PE {me}: u32 fetch-add total");
    if me == 0 {
        let ints = ints.to_vec().unwrap();
        let expected = expected_ints(n);
        for (i, want) in expected.iter().enumerate() {
            if let Some(want) = want {
                assert_eq!(ints[i], *want, "ints[{i}]");
            }
        }
        let longs = longs.to_vec().unwrap();
        assert_eq!(longs[0], n64 << 33, "i64 fetch_add (long)");
        assert_eq!(longs[1], n64, "i64 inc (long)");
        assert_eq!(longs[3], m << 32, "i64 or (int64)");
        assert_eq!(uints.to_vec().unwrap(), [3 * n as u32, m as u32], "u32");
        let ulongs = ulongs.to_vec().unwrap();
        assert_eq!(
            ulongs,
            [(n as u64) << 40, n as u64, (m as u64) << 40],
            "u64"
        );
        let sizes = sizes.to_vec().unwrap();
        assert_eq!(sizes[0], n as usize, "usize fetch_add");
        let floats = floats.to_vec().unwrap();
        assert_eq!(floats[0], 1.5, "f32 set");
        assert_eq!(doubles.to_vec().unwrap(), [2.25], "f64 set");
        let isizes = isizes.to_vec().unwrap();

        let tickets = tickets.to_vec().unwrap();
        let of = |kind: usize| tickets[kind * MAX_PES..][..n as usize].to_vec();
        for kind in [
            INT_FETCH_ADD,
            INT_FETCH_INC,
            LONG_FETCH_ADD,
            UINT_FETCH_ADD,
            ULONG_FETCH_INC,
        ] {
            let mut seen = of(kind);
            seen.sort_unstable();
            assert_eq!(
                seen,
                (0..n64).collect::<Vec<_>>(),
                "ticket kind {kind}: every PE fetched a distinct old value"
            );
        }
        for (kind, last) in [
            (INT_COMPARE_SWAP, ints[4] as i64),
            (LONG_COMPARE_SWAP, longs[2]),
            (SIZE_COMPARE_SWAP, sizes[1] as i64),
            (ISIZE_COMPARE_SWAP, isizes[0] as i64),
        ] {
            let olds = of(kind);
            assert_eq!(
                olds.iter().filter(|&&old| old == 0).count(),
                1,
                "ticket kind {kind}: exactly one compare-swap wins: {olds:?}"
            );
            assert!(
                olds.iter().all(|&old| old == 0 || old == last),
                "ticket kind {kind}: the losers see the winner's value {last}: {olds:?}"
            );
            let winner = olds.iter().position(|&old| old == 0).unwrap() as i64;
            assert_eq!(
                last.abs(),
                winner + 1,
                "ticket kind {kind}: the winner's value"
            );
        }
        for (kind, last, sign) in [
            (INT_SWAP, ints[5] as i64, 1),
            (FLOAT_SWAP, floats[1] as i64, 1),
            (ISIZE_SWAP, isizes[1] as i64, -1),
        ] {
            let mut values = of(kind);
            values.push(last);
            values.sort_unstable_by_key(|v| v.abs());
            let expected: Vec<i64> = (0..=n64).map(|v| sign * v).collect();
            assert_eq!(
                values, expected,
                "ticket kind {kind}: the swaps form one chain"
            );
        }
        for (pe, old) in of(INT_FETCH_OR).into_iter().enumerate() {
            assert_eq!(
                old & (1 << pe),
                0,
                "PE {pe}'s bit was clear before its fetch_or"
            );
        }
        for (pe, old) in of(ULONG_FETCH_XOR).into_iter().enumerate() {
            assert_eq!(
                old & (1 << pe),
                0,
                "PE {pe}'s bit was clear before its fetch_xor"
            );
        }
    }
    println!("PE {me}/{n}: atomic families OK");
    nvshmem.barrier_all();
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn flush_on_stream_runs_from_nvshmem_3_7_and_is_an_error_naming_it_before() {
    let nvshmem = init();
    let release = nvshmem.version();
    let flushed = nvshmem.flush_on_stream();
    if (release.major, release.minor) >= (3, 7) {
        flushed.unwrap_or_else(|error| panic!("NVSHMEM {release}: {error}"));
        nvshmem.quiet_on_stream();
        nvshmem.barrier_all_on_stream();
    } else {
        let error = flushed.expect_err("a library before 3.7 has no nvshmemx_flush_on_stream");
        assert!(matches!(error, Error::MissingSymbol { .. }), "{error:?}");
        let message = error.to_string();
        assert!(
            message.contains("no nvshmemx_flush_on_stream, which NVSHMEM 3.7 added"),
            "{message}"
        );
    }
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn barriers_over_all_pes_and_queries_without_teams() {
    use layout::world::*;
    let nvshmem = init();
    let (me, n) = (nvshmem.my_pe(), nvshmem.n_pes());
    let module = nvshmem.load_module(PTX).expect("load");
    let counters = zeroed!(nvshmem, u64, VARIANTS);
    let workspace = zeroed!(nvshmem, u64, MAX_PES + 1);
    let results = zeroed!(nvshmem, i64, RESULTS);
    nvshmem.barrier_all();
    launch(
        &nvshmem,
        &module,
        "world_sync",
        &[
            &counters.as_symmetric_ptr(),
            &workspace.as_symmetric_ptr(),
            &results.as_symmetric_ptr(),
        ],
    );
    let version: Vec<i32> = NVSHMEM_VERSION
        .split('.')
        .map(|part| part.parse().expect("x.y.z"))
        .collect();
    let expected = expected_results(me, n, (version[0], version[1], version[2]));
    check("results", me, &results.to_vec().unwrap(), |i| expected[i]);
    assert_eq!(
        workspace.to_vec().unwrap()[n as usize],
        2,
        "PE {me}: two debugging barriers counted"
    );
    println!("PE {me}/{n}: barriers over all PEs and queries OK");
    nvshmem.barrier_all();
}

/// Runs the team kernels over `team` (whose members, in team order, are the world PEs `members`)
/// and checks every result; PEs outside the team only take part in the host barriers.
struct TeamRun<'a, 'nv> {
    nvshmem: &'nv Nvshmem,
    module: &'a Module<'nv>,
    counters: SymmetricBuffer<'nv, u64>,
    queries: SymmetricBuffer<'nv, i64>,
    int_source: SymmetricBuffer<'nv, i32>,
    ints: SymmetricBuffer<'nv, i32>,
    real_source: SymmetricBuffer<'nv, f64>,
    reals: SymmetricBuffer<'nv, f64>,
    maxloc: SymmetricBuffer<'nv, [f64; 2]>,
}

const TEAM_KERNELS: [&str; 8] = [
    "team_queries_and_barriers",
    "team_reduce_thread_a",
    "team_reduce_thread_b",
    "team_reduce_warp",
    "team_reduce_block_a",
    "team_reduce_block_b",
    "team_broadcast",
    "team_collect",
];

impl<'a, 'nv> TeamRun<'a, 'nv> {
    fn new(nvshmem: &'nv Nvshmem, module: &'a Module<'nv>) -> Self {
        use layout::collective::*;
        TeamRun {
            nvshmem,
            module,
            counters: zeroed!(nvshmem, u64, VARIANTS),
            queries: zeroed!(nvshmem, i64, QUERIES + VARIANTS),
            int_source: zeroed!(nvshmem, i32, SOURCE),
            ints: zeroed!(nvshmem, i32, INT_REGIONS * SOURCE),
            real_source: zeroed!(nvshmem, f64, SOURCE),
            reals: zeroed!(nvshmem, f64, REAL_REGIONS * SOURCE),
            maxloc: nvshmem.alloc_aligned(2, 16).expect("aligned allocation"),
        }
    }

    fn run(&mut self, team: Option<Team>, members: &[i32]) {
        use layout::collective::*;
        let nvshmem = self.nvshmem;
        let me = nvshmem.my_pe();
        self.counters.copy_from_host(&[0; VARIANTS]).unwrap();
        self.queries
            .copy_from_host(&[0; QUERIES + VARIANTS])
            .unwrap();
        self.ints
            .copy_from_host(&vec![0; INT_REGIONS * SOURCE])
            .unwrap();
        self.reals
            .copy_from_host(&vec![0.0; REAL_REGIONS * SOURCE])
            .unwrap();
        self.maxloc.copy_from_host(&[[0.0; 2]; 2]).unwrap();
        nvshmem.barrier_all();
        let Some(team) = team else {
            let started = Instant::now();
            nvshmem.barrier_all();
            // How long the team's kernels kept this non-member waiting (suite logs show it).
            println!(
                "PE {me}: not in team {members:?}, waited {:.1} ms for its kernels",
                elapsed_ms(started)
            );
            return;
        };
        // The kernels' `SymmetricPtr<MaxLoc>` is the same pointer: `MaxLoc` is two `f64`s,
        // 16-byte aligned (the buffer is allocated so).
        let maxloc = self.maxloc.as_symmetric_ptr();
        for name in TEAM_KERNELS {
            let started = Instant::now();
            launch(
                nvshmem,
                self.module,
                name,
                &[
                    &team,
                    &self.counters.as_symmetric_ptr(),
                    &self.queries.as_symmetric_ptr(),
                    &self.int_source.as_symmetric_ptr(),
                    &self.ints.as_symmetric_ptr(),
                    &self.real_source.as_symmetric_ptr(),
                    &self.reals.as_symmetric_ptr(),
                    &maxloc,
                ],
            );
            // Each kernel's time from launch to completion, for the suite logs.
            println!(
                "PE {me}: {name} on team {members:?}: {:.1} ms",
                elapsed_ms(started)
            );
        }
        nvshmem.barrier_all();

        let size = members.len();
        let rank = members.iter().position(|&pe| pe == me).expect("a member");
        let what = |thing: &str| format!("team {members:?}: {thing}");
        let mut queries = vec![
            rank as i64,
            size as i64,
            members[0] as i64,
            rank as i64,
            -1,
            1,
            nvshmem.n_pes() as i64,
            0,
        ];
        queries.extend([size as i64; VARIANTS]);
        check(
            &what("queries and barrier counters"),
            me,
            &self.queries.to_vec().unwrap(),
            |i| queries[i],
        );

        let ints = self.ints.to_vec().unwrap();
        let region = |r: usize| &ints[r * SOURCE..][..SOURCE];
        let all = |i: usize| members.iter().map(move |&p| int_source(p, i));
        type Fold = fn(i32, i32) -> i32;
        let reductions: [(usize, &str, Fold); 7] = [
            (0, "sum", |a, b| a.wrapping_add(b)),
            (1, "min", i32::min),
            (2, "max", i32::max),
            (3, "and", |a, b| a & b),
            (4, "or", |a, b| a | b),
            (5, "xor", |a, b| a ^ b),
            (6, "prod", |a, b| a.wrapping_mul(b)),
        ];
        for (r, name, fold) in reductions {
            // Region 1 (min) reduces three elements more: its 16-byte pieces and a tail.
            let reduced = if r == 1 { COUNT + 3 } else { COUNT };
            check(&what(&format!("reduce {name}")), me, region(r), |i| {
                if i < reduced {
                    all(i).reduce(fold).unwrap()
                } else {
                    0
                }
            });
        }
        check(&what("reduce sum of SMALL elements"), me, region(17), |i| {
            if i < SMALL { all(i).sum() } else { 0 }
        });
        check(&what("source copy plus one"), me, region(15), |i| {
            if i < COUNT { int_source(me, i) + 1 } else { 0 }
        });
        check(
            &what("reduce sum after the sources changed"),
            me,
            region(16),
            |i| {
                if i < COUNT {
                    all(i).map(|v| v + 1).sum()
                } else {
                    0
                }
            },
        );
        let at_rank = |i: usize| rank * COUNT + i;
        check(&what("reducescatter sum"), me, region(7), |i| {
            if i < COUNT { all(at_rank(i)).sum() } else { 0 }
        });
        check(&what("reducescatter max"), me, region(14), |i| {
            if i < COUNT {
                all(at_rank(i)).max().unwrap()
            } else {
                0
            }
        });
        let root = 1 % size;
        check(&what("broadcast"), me, region(8), |i| {
            if i < COUNT {
                int_source(members[root], i)
            } else {
                0
            }
        });
        check(&what("broadcastmem"), me, region(11), |i| {
            if i < COUNT {
                int_source(members[0], i)
            } else {
                0
            }
        });
        let gathered = |block: usize| {
            move |i: usize| {
                if i < block * size {
                    int_source(members[i / block], i % block)
                } else {
                    0
                }
            }
        };
        check(&what("fcollect"), me, region(9), gathered(COUNT));
        check(&what("fcollectmem"), me, region(12), gathered(MEM_INTS));
        let exchanged = |block: usize| {
            move |i: usize| {
                if i < block * size {
                    int_source(members[i / block], rank * block + i % block)
                } else {
                    0
                }
            }
        };
        check(&what("alltoall"), me, region(10), exchanged(ALLTOALL_INTS));
        check(&what("alltoallmem"), me, region(13), exchanged(MEM_INTS));

        let reals = self.reals.to_vec().unwrap();
        let real_region = |r: usize| &reals[r * SOURCE..][..SOURCE];
        let all_reals = |i: usize| members.iter().map(move |&p| real_source(p, i));
        check(&what("reduce sum f64 (warp)"), me, real_region(0), |i| {
            if i < COUNT { all_reals(i).sum() } else { 0.0 }
        });
        check(
            &what("reducescatter sum f64 (warp)"),
            me,
            real_region(1),
            |i| {
                if i < COUNT {
                    all_reals(at_rank(i)).sum()
                } else {
                    0.0
                }
            },
        );
        check(&what("alltoall f64"), me, real_region(2), |i| {
            if i < ALLTOALL_REALS * size {
                real_source(
                    members[i / ALLTOALL_REALS],
                    rank * ALLTOALL_REALS + i % ALLTOALL_REALS,
                )
            } else {
                0.0
            }
        });
        let [_, [value, location]] = self.maxloc.to_vec().unwrap()[..] else {
            unreachable!("two elements")
        };
        let best = members
            .iter()
            .map(|&p| maxloc_source(p).0)
            .fold(f64::MIN, f64::max);
        assert_eq!(value, best, "PE {me}: {}", what("maxloc value"));
        assert!(
            members
                .iter()
                .any(|&p| maxloc_source(p) == (best, location)),
            "PE {me}: {}: location {location} does not hold the maximum",
            what("maxloc")
        );
    }
}

fn require_full_mpg(nvshmem: &Nvshmem) {
    let status = nvshmem.init_status();
    assert!(
        status.supports_teams_and_collectives(),
        "NVSHMEM runs in {status:?} mode: team splits, team barriers and collectives with several \
         PEs per GPU need MPS (nvidia-cuda-mps-control -d) and CUDA_MPS_ACTIVE_THREAD_PERCENTAGE ≤ \
         100 / PEs per GPU in every PE's environment"
    );
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn full_mpg_team_splits_barriers_and_collectives() {
    let nvshmem = init();
    require_full_mpg(&nvshmem);
    let (me, n) = (nvshmem.my_pe(), nvshmem.n_pes());
    let module = nvshmem.load_module(TEAMS_PTX).expect("load");
    let mut run = TeamRun::new(&nvshmem, &module);

    let world: Vec<i32> = (0..n).collect();
    run.run(Some(Team::WORLD), &world);

    let evens: Vec<i32> = (0..n).step_by(2).collect();
    let started = Instant::now();
    let even = nvshmem
        .split_strided(Team::WORLD, 0, 2, evens.len() as i32)
        .expect("split_strided");
    println!(
        "PE {me}: split_strided of the evens: {:.1} ms",
        elapsed_ms(started)
    );
    assert_eq!(
        even.is_some(),
        me % 2 == 0,
        "PE {me}: membership of the even team"
    );
    if let Some(even) = &even {
        assert_eq!((even.my_pe(), even.n_pes()), (me / 2, evens.len() as i32));
        assert_eq!(
            nvshmem
                .team_translate_pe(even.team(), even.n_pes() - 1, Team::WORLD)
                .unwrap(),
            evens.last().copied()
        );
    }
    run.run(even.as_ref().map(|team| team.team()), &evens);

    let started = Instant::now();
    let (row, column) = nvshmem.split_2d(Team::WORLD, 2).expect("split_2d");
    println!("PE {me}: split_2d: {:.1} ms", elapsed_ms(started));
    let row = row.expect("every PE is in a row");
    let column = column.expect("every PE is in a column");
    let row_size = (n - me / 2 * 2).min(2);
    assert_eq!(
        (row.my_pe(), row.n_pes()),
        (me % 2, row_size),
        "PE {me}: row team"
    );
    assert_eq!(
        (column.my_pe(), column.n_pes()),
        (me / 2, (n - me % 2 + 1) / 2),
        "PE {me}: column team"
    );
    assert_eq!(
        nvshmem
            .team_translate_pe(row.team(), 0, Team::WORLD)
            .unwrap(),
        Some(me / 2 * 2)
    );
    assert_eq!(
        nvshmem
            .team_translate_pe(Team::WORLD, me, column.team())
            .unwrap(),
        Some(me / 2)
    );
    let started = Instant::now();
    nvshmem.team_barrier(row.team()).expect("host team barrier");
    nvshmem.team_sync(column.team()).expect("host team sync");
    println!(
        "PE {me}: row barrier and column sync: {:.1} ms",
        elapsed_ms(started)
    );
    let error = nvshmem
        .split_strided(Team::WORLD, 0, 1, n + 1)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains(&format!("cannot split a team of {n} PE(s)")),
        "{error}"
    );
    let error = nvshmem
        .team_translate_pe(Team::WORLD, n, Team::WORLD)
        .unwrap_err()
        .to_string();
    assert!(error.contains(&format!("PE {n} does not exist")), "{error}");
    drop(column);
    drop(row);
    drop(even);
    println!("PE {me}/{n}: team splits, team barriers and collectives OK");
    drop(run);
    drop(module);
    nvshmem.finalize().expect("finalize");
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn full_mpg_on_stream_operations() {
    use layout::collective::COUNT;
    use layout::rma::source;
    let nvshmem = init();
    require_full_mpg(&nvshmem);
    let (me, n) = (nvshmem.my_pe(), nvshmem.n_pes());
    let (to, from) = (next(me, n), prev(me, n));
    let src = filled!(nvshmem, N, |i| source(me, i));
    let buffers: Vec<SymmetricBuffer<'_, i32>> = (0..12)
        .map(|_| zeroed!(nvshmem, i32, N * MAX_PES))
        .collect();
    let [
        put,
        put_nbi,
        get,
        get_nbi,
        signalled,
        signalled_nbi,
        reduced,
        scattered,
        broadcast,
        gathered,
        exchanged,
        xored,
    ] = &buffers[..]
    else {
        unreachable!("twelve buffers")
    };
    let signals = zeroed!(nvshmem, u64, 4);
    nvshmem.barrier_all();

    nvshmem.put_on_stream(put, &src, N, to).unwrap();
    nvshmem.put_nbi_on_stream(put_nbi, &src, N, to).unwrap();
    nvshmem.quiet_on_stream();
    nvshmem.barrier_all_on_stream();
    nvshmem.get_on_stream(get, &src, N, to).unwrap();
    nvshmem.get_nbi_on_stream(get_nbi, &src, N, to).unwrap();
    nvshmem.quiet_on_stream();
    nvshmem
        .put_signal_on_stream(signalled, &src, N, &signals, 0, 1, SignalOp::Add, to)
        .unwrap();
    nvshmem
        .put_signal_nbi_on_stream(signalled_nbi, &src, N, &signals, 1, 5, SignalOp::Set, to)
        .unwrap();
    for pe in 0..n {
        nvshmem
            .signal_op_on_stream(&signals, 2, 1, SignalOp::Add, pe)
            .unwrap();
    }
    nvshmem
        .signal_wait_until_on_stream(&signals, 0, Cmp::Ge, 1)
        .unwrap();
    nvshmem
        .signal_wait_until_on_stream(&signals, 1, Cmp::Eq, 5)
        .unwrap();
    nvshmem
        .signal_wait_until_on_stream(&signals, 2, Cmp::Eq, n as u64)
        .unwrap();
    nvshmem
        .reduce_on_stream(Team::WORLD, op::Sum, reduced, &src, COUNT)
        .unwrap();
    nvshmem
        .reducescatter_on_stream(Team::WORLD, op::Max, scattered, &src, COUNT)
        .unwrap();
    nvshmem
        .broadcast_on_stream(Team::WORLD, broadcast, &src, COUNT, n - 1)
        .unwrap();
    nvshmem
        .fcollect_on_stream(Team::WORLD, gathered, &src, COUNT)
        .unwrap();
    nvshmem
        .alltoall_on_stream(Team::WORLD, exchanged, &src, 4)
        .unwrap();
    nvshmem.team_barrier_on_stream(Team::WORLD).unwrap();
    nvshmem.team_sync_on_stream(Team::WORLD).unwrap();
    nvshmem.sync_all_on_stream();
    nvshmem
        .synchronize()
        .expect("the stream's operations complete");

    let first = |buffer: &SymmetricBuffer<'_, i32>, count: usize| {
        buffer.to_vec().unwrap()[..count].to_vec()
    };
    check("put", me, &first(put, N), |i| source(from, i));
    check("put_nbi", me, &first(put_nbi, N), |i| source(from, i));
    check("get", me, &first(get, N), |i| source(to, i));
    check("get_nbi", me, &first(get_nbi, N), |i| source(to, i));
    check("put_signal", me, &first(signalled, N), |i| source(from, i));
    check("put_signal_nbi", me, &first(signalled_nbi, N), |i| {
        source(from, i)
    });
    assert_eq!(
        signals.to_vec().unwrap(),
        [1, 5, n as u64, 0],
        "PE {me}: signals"
    );
    check("reduce sum", me, &first(reduced, COUNT), |i| {
        (0..n).map(|p| source(p, i)).sum()
    });
    check("reducescatter max", me, &first(scattered, COUNT), |i| {
        source(n - 1, me as usize * COUNT + i)
    });
    check("broadcast", me, &first(broadcast, COUNT), |i| {
        source(n - 1, i)
    });
    check("fcollect", me, &first(gathered, COUNT * n as usize), |i| {
        source((i / COUNT) as i32, i % COUNT)
    });
    check("alltoall", me, &first(exchanged, 4 * n as usize), |i| {
        source((i / 4) as i32, me as usize * 4 + i % 4)
    });

    // A reduction over a split team, on the stream.
    let evens = (n + 1) / 2;
    let even = nvshmem
        .split_strided(Team::WORLD, 0, 2, evens)
        .expect("split_strided");
    if let Some(even) = &even {
        nvshmem
            .reduce_on_stream(even.team(), op::Xor, xored, &src, COUNT)
            .unwrap();
        nvshmem.synchronize().unwrap();
        check(
            "reduce xor over the even PEs",
            me,
            &first(xored, COUNT),
            |i| {
                (0..n)
                    .step_by(2)
                    .map(|p| source(p, i))
                    .fold(0, |x, v| x ^ v)
            },
        );
    }
    nvshmem.barrier_all();

    // What the host checks before enqueueing.
    let error = nvshmem.put_on_stream(put, &src, N + 1, to).unwrap_err();
    assert!(
        matches!(error, Error::Memory(nvshmem_host::MemoryError::BufferTooShort { buffer: "source", len, needed }) if len == N && needed == N + 1),
        "{error}"
    );
    let error = nvshmem.get_on_stream(get, &src, N, n).unwrap_err();
    assert!(
        matches!(
            error,
            Error::Team(nvshmem_host::TeamError::InvalidPe { .. })
        ),
        "{error}"
    );
    let error = nvshmem
        .broadcast_on_stream(Team::WORLD, broadcast, &src, COUNT, n)
        .unwrap_err();
    assert!(
        matches!(
            error,
            Error::Team(nvshmem_host::TeamError::InvalidPe { .. })
        ),
        "{error}"
    );
    println!("PE {me}/{n}: on-stream operations OK");
    drop(even);
}

/// The body of the `trap_*` tests: started alone, relaunch on `DEVICE_API_TRAP_PES` PEs and check
/// that the job fails promptly with `message` in some PE's output; as a PE, run `kernel`, which
/// must trap, and exit with [`TRAPPED`].
fn expect_trap(test: &str, kernel: &str, message: &str) {
    // The name the test harness knows: with this module's path when another target includes it.
    let test = &match module_path!().split_once("::") {
        Some((_, module)) => format!("{module}::{test}"),
        None => test.to_string(),
    };
    match Bootstrap::detect().expect("detecting how this process was started") {
        Bootstrap::SinglePe => {
            let pes: usize = std::env::var("DEVICE_API_TRAP_PES")
                .ok()
                .and_then(|value| value.parse().ok())
                .unwrap_or(2);
            let pes = std::num::NonZeroUsize::new(pes).expect("at least one PE");
            let outcome = nvshmem_launch::Launch::current_program()
                .expect("this test's path")
                .args([
                    "--ignored",
                    "--exact",
                    test,
                    "--nocapture",
                    "--test-threads",
                    "1",
                ])
                .n_pes(pes)
                .pes_per_gpu(pes)
                .timeout(Duration::from_secs(90))
                .run()
                .expect("the job starts");
            println!("{outcome}");
            assert!(
                matches!(outcome.ending, nvshmem_launch::Ending::PeFailed { .. }),
                "the job must end by a PE failing, not {:?}",
                outcome.ending
            );
            assert_ne!(outcome.exit_code(), 0);
            assert!(
                outcome
                    .pes
                    .iter()
                    .flat_map(|pe| &pe.last_lines)
                    .any(|line| line.contains(message)),
                "no PE printed `{message}`"
            );
        }
        bootstrap => {
            let nvshmem = Nvshmem::init_with(bootstrap).expect("init");
            let me = nvshmem.my_pe();
            let module = nvshmem.load_module(PTX).expect("load");
            let words = zeroed!(nvshmem, u64, MAX_PES + 1);
            nvshmem.barrier_all();
            let kernel = module.kernel(kernel).expect("the kernel exists");
            // SAFETY: both trap kernels take (a zeroed symmetric buffer of MAX_PES + 1 words, a
            // cycle budget); every PE launches it.
            let launched = unsafe {
                kernel.launch_cooperative(
                    LaunchConfig::linear(1, THREADS),
                    &[&words.as_symmetric_ptr(), &TRAP_BUDGET_CYCLES],
                )
            };
            match launched.and_then(|()| nvshmem.synchronize()) {
                Err(error) => {
                    println!("PE {me}: the kernel trapped as expected: {error}");
                    std::process::exit(TRAPPED);
                }
                Ok(()) => {
                    // The PE that is not waited on (the barrier test's last PE) gets here: give the
                    // others time to trap before NVSHMEM's teardown.
                    println!("PE {me}: the kernel finished");
                    std::thread::sleep(Duration::from_secs(10));
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn trap_wait_until_timeout_when_nobody_answers() {
    expect_trap(
        "trap_wait_until_timeout_when_nobody_answers",
        "wait_for_nobody",
        "wait_until_timeout gave up after",
    );
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn trap_barrier_all_timeout_when_a_pe_stays_away() {
    expect_trap(
        "trap_barrier_all_timeout_when_a_pe_stays_away",
        "barrier_missing_last_pe",
        "has not arrived at barrier 1",
    );
}

/// Runs on the CPU, in CI: the builder produced both modules (it has assembled them with `ptxas`
/// already) with every kernel the tests above launch.
#[test]
fn both_modules_export_the_kernels_the_tests_launch() {
    let entries = |ptx: &str| -> Vec<String> {
        ptx.lines()
            .filter_map(|line| line.strip_prefix(".visible .entry "))
            .filter_map(|rest| rest.split('(').next())
            .map(str::to_string)
            .collect()
    };
    let light = entries(PTX);
    for kernel in [
        "rma_families",
        "signal_families",
        "signal_order",
        "slot_reuse",
        "p2p_families",
        "atomic_families",
        "world_sync",
        "wait_for_nobody",
        "barrier_missing_last_pe",
    ] {
        assert!(
            light.iter().any(|entry| entry == kernel),
            "no {kernel} in {light:?}"
        );
    }
    let teams = entries(TEAMS_PTX);
    for kernel in TEAM_KERNELS {
        assert!(
            teams.iter().any(|entry| entry == kernel),
            "no {kernel} in {teams:?}"
        );
    }
    for ptx in [PTX, TEAMS_PTX] {
        assert!(ptx.contains("nvshmemi_device_lib_version_d"));
    }
}
