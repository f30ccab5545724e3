//! GPU tests of the host crate's collective checks; `gpu-suite/run.sh` runs each through
//! `nvshmemrun` with 2 PEs sharing one GPU (`#[ignore]`d in `cargo test`: they need a GPU).

use nvshmem_host::{Error, Nvshmem};

#[test]
#[ignore = "needs a GPU and NVSHMEM with 2 PEs: gpu-suite/run.sh runs it on the GPU machine"]
fn mismatched_allocations_are_reported_on_every_pe() {
    let nvshmem = Nvshmem::init().expect("init");
    assert_eq!(nvshmem.n_pes(), 2, "run with 2 PEs");
    nvshmem.set_allocation_check(true);
    let same = nvshmem
        .alloc::<f32>(256)
        .expect("matching requests are allowed");
    let pe = nvshmem.my_pe() as usize;
    let error = nvshmem
        .alloc::<f32>(100 + pe)
        .expect_err("different sizes must be refused");
    let message = error.to_string();
    println!("PE {pe}: {message}");
    let Error::AllocationMismatch { requests } = &error else {
        panic!("{message}")
    };
    let bytes: Vec<u64> = requests.iter().map(|request| request.bytes).collect();
    assert_eq!(bytes, [400, 404], "{message}");
    assert!(
        requests.iter().all(|request| request.sequence == 2),
        "{message}"
    );
    assert!(
        message.contains("PE 1 asked for 404 bytes (its allocation #2)"),
        "{message}"
    );
    // The heap is still in step: the next matching request succeeds on both PEs.
    let after = nvshmem
        .alloc::<u64>(8)
        .expect("the job goes on after a refused request");
    drop(after);
    drop(same);
    nvshmem.finalize().expect("finalize");
}
