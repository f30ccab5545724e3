//! Signals: put with signal, signal operations, fetches and waits, and how signal additions
//! reach PEs that share a GPU.

use super::layout::{self, N, prev};
use super::support::{IMAGE, NVSHMEM_ONLY, NVSHMEM_VERSION, check, filled, init, launch, zeroed};
use nvshmem_host::SignalAdds;

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn signal_families_deliver_data_and_count_every_pe() {
    use layout::signal::*;
    let nvshmem = init();
    let (me, n) = (nvshmem.my_pe(), nvshmem.n_pes());
    let module = nvshmem.load_module(IMAGE).expect("load");
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

/// Every PE of the suite's jobs shares one GPU, so every PE maps every other and NVSHMEM adds to
/// signal words through the mapping: the host must let the load/store path's kernels do the same
/// (the NVSHMEM-only build has no such path).
#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn load_store_kernels_add_signals_through_the_mapping_where_nvshmem_does() {
    let nvshmem = init();
    let me = nvshmem.my_pe();
    let module = nvshmem.load_module(IMAGE).expect("load");
    let expected = if NVSHMEM_ONLY {
        SignalAdds::NoLoadStorePath
    } else {
        SignalAdds::Mapped
    };
    assert_eq!(*module.signal_adds(), expected, "PE {me}");
    println!("PE {me}: signal additions as NVSHMEM {NVSHMEM_VERSION} would make them");
    nvshmem.barrier_all();
}
