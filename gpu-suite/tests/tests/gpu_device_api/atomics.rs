//! Atomics: every operation on every element type, each applied exactly once per PE.

use super::layout::{self, MAX_PES};
use super::support::{IMAGE, check, init, launch, zeroed};

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn atomics_apply_exactly_once_per_pe() {
    use layout::atomic::{ticket::*, *};
    let nvshmem = init();
    let (me, n) = (nvshmem.my_pe(), nvshmem.n_pes());
    let module = nvshmem.load_module(IMAGE).expect("load");
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
