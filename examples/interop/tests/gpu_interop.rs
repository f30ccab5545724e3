//! GPU tests of nvshmem-host beside cudarc. They need a GPU and NVSHMEM, so they are `#[ignore]`d
//! here; `gpu-suite/run.sh` runs each in its own process per PE on the GPU machine (NVSHMEM can be
//! initialised once per process), under `nvshmemrun -n 2`.

use cudarc::driver::CudaContext;
use interop::{KERNELS, cudarc_launch_reads_a_put, peer_pointers, registered_allocation_is_put};
use nvshmem_host::{Bootstrap, Error, Nvshmem, TeamError};
use nvshmem_pe_env::PeIdentity;
use std::sync::Arc;

const COUNT: usize = 10_000;

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn cudarc_launch_reads_what_another_pe_put() {
    let nvshmem = Nvshmem::init().expect("init");
    let module = nvshmem.load_module(KERNELS).expect("load");
    let stream = nvshmem.context().new_stream().expect("a stream");
    let wrong = cudarc_launch_reads_a_put(&nvshmem, &module, &stream, COUNT).expect("ran");
    assert_eq!(
        wrong, 0,
        "elements differing from the previous PE's pattern"
    );
    nvshmem
        .context()
        .check_err()
        .expect("no error kept in the context");
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn registered_cudarc_allocation_is_the_source_of_a_put() {
    let nvshmem = Nvshmem::init().expect("init");
    let stream = nvshmem.context().new_stream().expect("a stream");
    let wrong = registered_allocation_is_put(&nvshmem, &stream, COUNT).expect("ran");
    assert_eq!(wrong, 0, "elements differing from the previous PE's values");
    nvshmem.finalize().expect("no deferred error");
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn peer_pointers_reach_the_pes_of_one_gpu_and_refuse_others() {
    let nvshmem = Nvshmem::init().expect("init");
    let (peers, multicast) = peer_pointers(&nvshmem).expect("ran");
    println!("peer_ptr reachable: {peers:?}; world multicast: {multicast}");
    assert!(peers[nvshmem.my_pe() as usize], "a PE reaches its own copy");
    if std::env::var("NVSHMEM_DISABLE_NVLS").as_deref() == Ok("1") {
        assert!(!multicast, "multicast without NVLS");
    }
    let buffer = nvshmem.alloc_zeroed::<u32>(1).expect("alloc");
    let n = nvshmem.n_pes();
    let error = buffer.peer_ptr(n).unwrap_err();
    assert!(
        matches!(error, Error::Team(TeamError::InvalidPe { .. })),
        "{error}"
    );
    assert!(error.to_string().contains(&format!("0..{n}")), "{error}");
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn nvshmem_runs_on_the_callers_context_and_refuses_foreign_streams() {
    let identity = PeIdentity::from_env()
        .unwrap()
        .expect("started by nvshmemrun");
    let context = CudaContext::new(identity.gpu_ordinal()).expect("the PE's GPU");
    let nvshmem = Nvshmem::init_on(context.clone(), Bootstrap::detect().unwrap()).expect("init");
    assert!(Arc::ptr_eq(nvshmem.context(), &context));
    let module = nvshmem.load_module(KERNELS).expect("load");
    let stream = context.new_stream().expect("a stream");
    let wrong = cudarc_launch_reads_a_put(&nvshmem, &module, &stream, COUNT).expect("ran");
    assert_eq!(wrong, 0);
    let foreign = CudaContext::new_non_primary(identity.gpu_ordinal(), 0).expect("a context");
    let foreign_stream = foreign.new_stream().expect("a stream");
    let error = nvshmem.on(&foreign_stream).unwrap_err();
    println!("{error}");
    assert!(matches!(error, Error::ForeignContext { .. }), "{error}");
    drop(foreign_stream);
    drop(foreign);
    context
        .bind_to_thread()
        .expect("NVSHMEM's context current again");
}
