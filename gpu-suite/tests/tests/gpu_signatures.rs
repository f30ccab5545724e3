//! The typed launch's signature check against a hostile kernel crate (`signature-kernels/`, no
//! `unsafe`) and a hostile host program (this file, no `unsafe`): a slice's element type that
//! depends on the target, a kernel whose parameter order does, and another crate's descriptor of a
//! kernel with the same name and its parameters swapped. Unchecked, each launch would write through
//! a wrong type or a host number taken as an address.
//!
//! The CPU tests check the descriptors against the PTX text (`check_ptx_signature`); the
//! `#[ignore]`d GPU tests load the PTX and ask `typed_kernel` for each descriptor, then launch the
//! kernel whose builds agree: waiting, in a loop of launches that do not wait, and under a buffer
//! dropped while the kernel still writes it. `gpu-suite/cases/20-host-checks.sh` runs them at one PE.

#![forbid(unsafe_code)]

use device_api_signature_kernels::{Fill, FillWords, PutWord};
use nvshmem_host::{
    Error, KernelDescriptor, LaunchShape, Module, ModuleError, ModuleImage, Nvshmem,
    check_ptx_signature, module_image,
};

/// The hostile crate's kernels, as its device build compiled them.
const IMAGE: ModuleImage<'static> = module_image!("DEVICE_API_SIGNATURE_KERNELS");

/// Another kernel crate's `fill_words`: the hostile crate's kernel name, its parameters swapped.
/// Launched with the hostile crate's module, it would pass `value` as the slice's address.
mod another_crate {
    use nvshmem_gpu::{SymmetricSlice, kernel};

    /// Only its descriptor exists in this build (a kernel's body is compiled for the GPU alone).
    #[kernel]
    pub fn fill_words(value: u64, data: SymmetricSlice<u64>) {}
}

/// Checks that `refused` is a parameter mismatch of `kernel`'s parameter 0, `name`, `host` in the
/// host build and `device` in the module.
fn assert_first_parameter_refused(
    refused: ModuleError,
    kernel: &str,
    name: &str,
    host: &str,
    device: &str,
) {
    let message = refused.to_string();
    match &refused {
        ModuleError::ParameterMismatch {
            kernel: refused_kernel,
            index: 0,
            name: Some(refused_name),
            host: Some(refused_host),
            device: Some(refused_device),
        } => assert_eq!(
            (
                refused_kernel.as_str(),
                refused_name.as_str(),
                refused_host.as_str(),
                refused_device.as_str()
            ),
            (kernel, name, host, device),
            "{message}"
        ),
        _ => panic!("not a mismatch of parameter 0: {message}"),
    }
    for part in [
        format!("parameter 0 `{name}` is `{host}` in the host build"),
        format!("but `{device}` in the loaded module"),
    ] {
        assert!(message.contains(&part), "{message} lacks {part}");
    }
}

/// Checks that `refused` says `kernel`'s descriptor comes from this test's crate and the module
/// from the hostile kernel crate.
fn assert_from_another_crate(refused: ModuleError, kernel: &str) {
    let message = refused.to_string();
    let this_crate = format!("{}@{}", env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"));
    let kernels_crate = format!("{}@{}", FillWords::CRATE, FillWords::VERSION);
    match &refused {
        ModuleError::KernelFromAnotherCrate {
            kernel: refused_kernel,
            descriptor,
            module,
        } => assert_eq!(
            (refused_kernel.as_str(), descriptor, module),
            (kernel, &this_crate, &kernels_crate),
            "{message}"
        ),
        _ => panic!("not a kernel of another crate: {message}"),
    }
}

#[test]
fn an_element_type_that_depends_on_the_target_is_refused_in_the_ptx() {
    let refused = check_ptx_signature::<Fill>(IMAGE.ptx()).expect_err("the builds disagree");
    assert_first_parameter_refused(
        refused,
        "fill",
        "data",
        "SymmetricSlice<u8>",
        "SymmetricSlice<u64>",
    );
}

#[test]
fn a_parameter_order_that_depends_on_the_target_is_refused_in_the_ptx() {
    let refused = check_ptx_signature::<PutWord>(IMAGE.ptx()).expect_err("the builds disagree");
    assert_first_parameter_refused(refused, "put_word", "value", "u64", "SymmetricSlice<u64>");
}

#[test]
fn another_crates_descriptor_of_the_same_name_is_refused_in_the_ptx() {
    let refused = check_ptx_signature::<another_crate::FillWords>(IMAGE.ptx())
        .expect_err("the descriptor is another crate's");
    assert_from_another_crate(refused, "fill_words");
}

#[test]
fn a_kernel_whose_builds_agree_passes_in_the_ptx() {
    check_ptx_signature::<FillWords>(IMAGE.ptx()).expect("both builds see the same kernel");
    assert!(IMAGE.ptx().contains("nvshmemi_device_lib_version_d"));
}

/// The module of the hostile crate's kernels, loaded on this PE.
fn load(nvshmem: &Nvshmem) -> Module<'_> {
    nvshmem.load_module(IMAGE).expect("the module loads")
}

/// The error `typed_kernel::<K>` refuses `module`'s kernel with.
fn refusal<K: KernelDescriptor>(module: &Module<'_>) -> ModuleError {
    match module.typed_kernel::<K>() {
        Err(Error::Module(refused)) => refused,
        Err(other) => panic!("refused for another reason: {other}"),
        Ok(_) => panic!("typed_kernel accepted the descriptor of {}", K::NAME),
    }
}

/// The error `typed_kernel::<K>` refuses the hostile crate's module with, loaded on this GPU.
fn gpu_refusal<K: KernelDescriptor>() -> ModuleError {
    let nvshmem = Nvshmem::init().expect("init");
    refusal::<K>(&load(&nvshmem))
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn typed_kernel_refuses_an_element_type_that_depends_on_the_target() {
    assert_first_parameter_refused(
        gpu_refusal::<Fill>(),
        "fill",
        "data",
        "SymmetricSlice<u8>",
        "SymmetricSlice<u64>",
    );
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn typed_kernel_refuses_a_parameter_order_that_depends_on_the_target() {
    assert_first_parameter_refused(
        gpu_refusal::<PutWord>(),
        "put_word",
        "value",
        "u64",
        "SymmetricSlice<u64>",
    );
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn typed_kernel_refuses_another_crates_descriptor_and_runs_the_own_one() {
    let nvshmem = Nvshmem::init().expect("init");
    let module = load(&nvshmem);
    assert_from_another_crate(refusal::<another_crate::FillWords>(&module), "fill_words");
    // The crate's own descriptor of the same kernel passes, and its launch writes every element.
    let words = nvshmem.alloc_zeroed::<u64>(1000).expect("allocated");
    let fill_words = module
        .typed_kernel::<FillWords>()
        .expect("both builds see the same kernel");
    fill_words
        .run(LaunchShape::linear(2, 256), (&words, 0x5eed_u64))
        .expect("launched");
    let mut written = vec![0u64; words.len()];
    words.copy_to_host(&mut written).expect("copied");
    assert!(written.iter().all(|&word| word == 0x5eed), "{written:?}");
}

/// Safe launches that do not wait: a loop of them runs in order on the handle's stream, and no
/// `unsafe` is needed for it.
#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn launches_that_do_not_wait_run_in_order() {
    let nvshmem = Nvshmem::init().expect("init");
    let module = load(&nvshmem);
    let fill = module
        .typed_kernel::<FillWords>()
        .expect("the builds agree");
    let words = nvshmem.alloc_zeroed::<u64>(1 << 20).expect("allocated");
    for value in 1..=1000u64 {
        fill.launch(LaunchShape::linear(8, 256), (&words, value))
            .expect("enqueued");
    }
    let values = words.to_vec().expect("read back");
    assert!(
        values.iter().all(|&value| value == 1000),
        "{:?}",
        &values[..4]
    );
}

/// A buffer dropped while a launch that did not wait still uses it is freed only after that kernel
/// has finished: the drop waits for it (a leaked buffer is never freed).
#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn a_buffer_dropped_under_a_running_kernel_waits_for_it() {
    let nvshmem = Nvshmem::init().expect("init");
    let module = load(&nvshmem);
    let fill = module
        .typed_kernel::<FillWords>()
        .expect("the builds agree");
    // 512 MiB written by one warp: the kernel runs for far longer than the host takes to drop.
    let doomed = nvshmem.alloc::<u64>(1 << 26).expect("allocated");
    fill.launch(LaunchShape::linear(1, 32), (&doomed, 0x5eed))
        .expect("enqueued");
    let launched = nvshmem.stream().record_event(None).expect("an event");
    assert!(
        !launched.is_complete(),
        "the kernel finished before its buffer could be dropped: give it more to write"
    );
    drop(doomed);
    assert!(
        launched.is_complete(),
        "dropping the buffer returned while the kernel that writes it was still running"
    );
}
