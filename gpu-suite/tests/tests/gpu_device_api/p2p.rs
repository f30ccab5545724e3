//! Point-to-point synchronisation: every form of wait and test on 64-, 32- and 16-bit flags.

use super::layout::{self, MAX_PES};
use super::support::{IMAGE, check, init, launch, zeroed};

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn waits_and_tests_of_every_form_see_every_pes_flag() {
    let nvshmem = init();
    let (me, n) = (nvshmem.my_pe(), nvshmem.n_pes());
    let module = nvshmem.load_module(IMAGE).expect("load");
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
