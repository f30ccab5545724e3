//! Barriers and synchronisation over all PEs, and the queries that need no team.

use super::layout::{self, MAX_PES};
use super::support::{IMAGE, NVSHMEM_VERSION, check, init, launch, zeroed};

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn barriers_over_all_pes_and_queries_without_teams() {
    use layout::world::*;
    let nvshmem = init();
    let (me, n) = (nvshmem.my_pe(), nvshmem.n_pes());
    let module = nvshmem.load_module(IMAGE).expect("load");
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
