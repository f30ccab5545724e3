//! GPU tests of the host crate's checks, against the ring example's real PTX. They need a GPU and
//! NVSHMEM, so they are `#[ignore]`d here; `gpu-suite/run.sh` runs each in its own process on the
//! GPU machine (NVSHMEM can be initialised once per process).

use nvshmem_host::{
    Error, InitError, KernelLaunchError, LaunchShape, MemoryError, ModuleError, Nvshmem,
};

const PTX: &str = include_str!(env!("RING_KERNELS_PTX"));

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn device_code_of_another_nvshmem_major_version_is_refused() {
    let nvshmem = Nvshmem::init().expect("init");
    let host = nvshmem.version();
    let original = format!(
        "nvshmemi_device_lib_version_d[12] = {{{}, 0, 0, 0,",
        host.major
    );
    assert!(
        PTX.contains(&original),
        "the PTX's version initializer looks different: {original}"
    );
    let patched = PTX.replace(
        &original,
        &format!(
            "nvshmemi_device_lib_version_d[12] = {{{}, 0, 0, 0,",
            host.major + 1
        ),
    );
    let error = nvshmem
        .load_module(&patched)
        .expect_err("a foreign major version must be refused");
    let message = error.to_string();
    println!("{message}");
    assert!(
        matches!(error, Error::Module(ModuleError::VersionMismatch { .. })),
        "{message}"
    );
    assert!(
        message.contains(&format!("NVSHMEM {}.{}", host.major + 1, host.minor)),
        "{message}"
    );
    assert!(
        message.contains(&format!("host library is NVSHMEM {host}")),
        "{message}"
    );
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn module_reports_its_device_version_and_kernels() {
    let nvshmem = Nvshmem::init().expect("init");
    let module = nvshmem.load_module(PTX).expect("load");
    assert_eq!(
        module.device_version().unwrap().to_string(),
        env!("RING_KERNELS_NVSHMEM_VERSION")
    );
    assert_eq!(module.kernel_names(), ["ring_block", "ring_elementwise"]);
    let error = module.kernel("no_such_kernel").unwrap_err().to_string();
    println!("{error}");
    assert!(
        error.contains("no kernel `no_such_kernel`; it has: ring_block, ring_elementwise"),
        "{error}"
    );
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn oversized_cooperative_grid_is_refused_with_the_limit() {
    let nvshmem = Nvshmem::init().expect("init");
    let module = nvshmem.load_module(PTX).expect("load");
    let kernel = module.kernel("ring_block").unwrap();
    let config = LaunchShape::linear(1_000_000, 256);
    let (limit, _, sms) = kernel.max_cooperative_blocks(config).unwrap();
    assert!(
        limit >= sms && limit < 1_000_000,
        "limit {limit} with {sms} SMs"
    );
    let buffer = nvshmem.alloc_zeroed::<f32>(1).unwrap();
    let ptr = buffer.as_symmetric_ptr();
    // SAFETY: refused before launch; the arguments match ring_block's parameters anyway.
    let error =
        unsafe { kernel.launch_cooperative(config, &[&ptr, &ptr, &ptr, &1usize]) }.unwrap_err();
    let message = error.to_string();
    println!("{message}");
    assert!(
        message.contains(&format!("launch at most {limit} blocks")),
        "{message}"
    );
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn a_block_larger_than_the_kernel_can_run_is_refused_with_the_limit() {
    let nvshmem = Nvshmem::init().expect("init");
    let module = nvshmem.load_module(PTX).expect("load");
    let kernel = module.kernel("ring_block").unwrap();
    let (limit, registers) = (kernel.max_threads_per_block(), kernel.registers());
    println!("ring_block: {registers} registers, at most {limit} threads per block");
    assert!((32..=1024).contains(&limit), "limit {limit}");
    assert!(registers > 0, "registers {registers}");
    let buffer = nvshmem.alloc_zeroed::<f32>(1).unwrap();
    let ptr = buffer.as_symmetric_ptr();
    let args: [&dyn nvshmem_host::KernelArg; 4] = [&ptr, &ptr, &ptr, &1usize];
    let config = LaunchShape::linear(1, 2 * limit);
    // SAFETY: refused before launch; the arguments match ring_block's parameters anyway.
    let launches = unsafe {
        [
            kernel.launch(config, &args),
            kernel.launch_cooperative(config, &args),
        ]
    };
    let occupancy = kernel.max_cooperative_blocks(config).map(|_| ());
    for error in launches.into_iter().chain([occupancy]) {
        let error = error.unwrap_err();
        let message = error.to_string();
        println!("{message}");
        assert!(
            matches!(error, Error::Launch(KernelLaunchError::BlockTooLarge { requested, limit: l, .. }) if requested == 2 * limit && l == limit),
            "{message}"
        );
        assert!(
            message.contains(&format!("at most {limit} threads per block")),
            "{message}"
        );
    }
    // Nothing was launched, so nothing failed on the stream.
    nvshmem.synchronize().unwrap();
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn heap_exhaustion_names_the_size_and_the_variable() {
    let nvshmem = Nvshmem::init().expect("init");
    let error = nvshmem.alloc::<u8>(1 << 50).unwrap_err();
    let message = error.to_string();
    println!("{message}");
    assert!(
        matches!(error, Error::Memory(MemoryError::HeapExhausted { bytes, .. }) if bytes == 1 << 50),
        "{message}"
    );
    // Beyond NVSHMEM's default cap of 128 GiB: refused before NVSHMEM sees it.
    assert!(
        message.contains("set NVSHMEM_MAX_MEMORY_PER_GPU to at least"),
        "{message}"
    );
    // The heap still works after the refusal.
    let mut small = nvshmem.alloc::<u32>(4).unwrap();
    small.copy_from_host(&[1, 2, 3, 4]).unwrap();
    assert_eq!(small.to_vec().unwrap(), [1, 2, 3, 4]);
    let error = small.copy_from_host(&[1, 2]).unwrap_err().to_string();
    assert!(
        error.contains("the host slice has 2 elements but the symmetric buffer has 4"),
        "{error}"
    );
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn a_request_the_cap_cannot_hold_beside_live_buffers_is_refused() {
    // SAFETY: set before NVSHMEM starts and reads it; the suite runs each GPU test in a process of
    // its own, so no other thread reads the environment.
    unsafe { std::env::set_var("NVSHMEM_MAX_MEMORY_PER_GPU", "2G") };
    let nvshmem = Nvshmem::init().expect("init");
    let held = nvshmem
        .alloc::<u8>(1 << 30)
        .expect("1 GiB under a cap of 2 GiB");
    // 1.25 GiB fits under the cap alone but not beside the live 1 GiB: NVSHMEM would crash on it.
    let request = 5 << 28;
    let error = nvshmem.alloc::<u8>(request).unwrap_err();
    let message = error.to_string();
    println!("{message}");
    assert!(
        matches!(error, Error::Memory(MemoryError::HeapExhausted { bytes, in_use, .. })
            if bytes == request && in_use == 1 << 30),
        "{message}"
    );
    assert!(
        message.contains("beside the 1024 MiB of live buffers")
            && message.contains("set NVSHMEM_MAX_MEMORY_PER_GPU to at least 3328M"),
        "{message}"
    );
    // Freeing the buffer gives its bytes back: the same request then fits.
    drop(held);
    let mut fits = nvshmem
        .alloc::<u8>(request)
        .expect("1.25 GiB once 1 GiB is freed");
    fits.copy_from_host(&vec![7; request]).unwrap();
    assert!(fits.to_vec().unwrap().iter().all(|&byte| byte == 7));
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn a_second_init_is_refused() {
    let nvshmem = Nvshmem::init().expect("init");
    let error = Nvshmem::init().unwrap_err();
    println!("{error}");
    assert!(
        matches!(error, Error::Init(InitError::AlreadyInitialized)),
        "{error}"
    );
    assert_eq!((nvshmem.my_pe(), nvshmem.n_pes()), (0, 1));
    nvshmem.finalize().expect("finalize");
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn aligned_allocations_are_aligned_and_bad_alignments_refused() {
    let nvshmem = Nvshmem::init().expect("init");
    let buffer = nvshmem.alloc_aligned::<f32>(100, 1 << 16).unwrap();
    assert_eq!(buffer.as_symmetric_ptr().as_ptr() as usize % (1 << 16), 0);
    // 4 is f32's alignment, but nvshmem_align needs at least a pointer's size.
    for bad in [3, 2, 4] {
        let error = nvshmem
            .alloc_aligned::<f32>(100, bad)
            .unwrap_err()
            .to_string();
        println!("{error}");
        assert!(
            error.contains(&format!(
                "alignment {bad} is not a power of two of at least 8"
            )),
            "{error}"
        );
    }
}
