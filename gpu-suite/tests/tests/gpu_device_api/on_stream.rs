//! The host's on-stream operations: transfers, signals, collectives and barriers enqueued on
//! NVSHMEM's stream, what the host checks before enqueueing, and the flush NVSHMEM 3.7 added.

use super::layout::{self, MAX_PES, N, next, prev};
use super::support::{check, filled, init, require_full_mpg, zeroed};
use nvshmem_host::{Cmp, Error, SignalOp, StreamOperations as _, SymmetricBuffer, Team, op};

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
