//! Barriers and synchronisation over all PEs, and the queries that need no team.

use super::layout::{self, MAX_PES};
use super::support::{IMAGE, NVSHMEM_VERSION, check, init, launch, zeroed};
use nvshmem_host::LaunchShape;

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

/// The safe layer's atomics on slice elements, its grid barrier and its vector access
/// (`safe_atomics_and_grid`): every thread of several blocks on every PE adds to words of every PE,
/// remotely and locally, contends for one compare-swap, the blocks meet in rounds of the grid
/// barrier, and one thread makes a 16-byte vector round trip; every value exact.
#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn safe_atomics_and_grid_barrier() {
    use layout::safe_atomics::*;
    let nvshmem = init();
    let (me, n) = (nvshmem.my_pe(), nvshmem.n_pes());
    let module = nvshmem.load_module(IMAGE).expect("load");
    let counts = zeroed!(nvshmem, u64, COUNTS);
    let mut cells = nvshmem
        .alloc_aligned::<u32>(CELLS, 16)
        .expect("aligned allocation");
    cells.copy_from_host(&[0; CELLS]).expect("zero the cells");
    nvshmem.barrier_all();
    let kernel = module
        .kernel("safe_atomics_and_grid")
        .expect("the kernel exists");
    // SAFETY: the arguments are the safe kernel's two slices, each as its address and length, of
    // zeroed symmetric buffers of those lengths; every PE launches it alike.
    unsafe {
        kernel.launch_cooperative(
            LaunchShape::linear(BLOCKS, layout::THREADS),
            &[
                &counts.as_symmetric_ptr(),
                &COUNTS,
                &cells.as_symmetric_ptr(),
                &CELLS,
            ],
        )
    }
    .expect("launch");
    nvshmem.synchronize().expect("run");
    let (me_u, n_u) = (me as usize, n as usize);
    let got = counts.to_vec().unwrap();
    let expected = expected_counts(me_u, n_u);
    check("atomic counts", me, &got, |i| {
        if i == CLAIMED && me == 0 {
            got[i]
        } else {
            expected[i]
        }
    });
    if me == 0 {
        assert!(
            (1..=n as u64).contains(&got[CLAIMED]),
            "PE 0: the compare-swap's winner {} is not a PE + 1",
            got[CLAIMED]
        );
    }
    let cells = cells.to_vec().unwrap();
    check(
        "grid barrier, tickets and vector",
        me,
        &cells[ERRORS..],
        |i| expected_cell(i + ERRORS),
    );
    println!("PE {me}/{n}: safe atomics and grid barrier OK");
    nvshmem.barrier_all();
}
