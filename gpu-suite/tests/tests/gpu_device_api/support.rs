//! What the families' tests share: the two kernel modules (and which build of them this binary
//! carries), initialisation, launching, symmetric buffers and the check of a buffer's values.

use super::layout::{MAX_PES, THREADS};
use nvshmem_host::{KernelArg, LaunchShape, Module, ModuleImage, Nvshmem, module_image};
use std::fmt::Debug;
use std::time::Instant;

/// Whether these tests run on the kernels built with `nvshmem-gpu`'s load/store path off (the
/// package's `nvshmem-only` feature).
pub(crate) const NVSHMEM_ONLY: bool = cfg!(feature = "nvshmem-only");
/// The device-API kernels, from the build this binary carries.
pub(crate) const IMAGE: ModuleImage<'static> = if NVSHMEM_ONLY {
    module_image!("DEVICE_API_KERNELS_NVSHMEM_ONLY")
} else {
    module_image!("DEVICE_API_KERNELS")
};
/// The team kernels, from the build this binary carries.
pub(crate) const TEAMS_IMAGE: ModuleImage<'static> = if NVSHMEM_ONLY {
    module_image!("DEVICE_API_TEAMS_KERNELS_NVSHMEM_ONLY")
} else {
    module_image!("DEVICE_API_TEAMS_KERNELS")
};
pub(crate) const NVSHMEM_VERSION: &str = env!("DEVICE_API_KERNELS_NVSHMEM_VERSION");

/// Launches `name` cooperatively as one block of `THREADS` threads and waits for it.
pub(crate) fn launch(nvshmem: &Nvshmem, module: &Module<'_>, name: &str, args: &[&dyn KernelArg]) {
    let kernel = module.kernel(name).expect("the kernel exists");
    // SAFETY: every caller passes the arguments the kernel declares, with the buffer sizes its
    // documentation asks for, and every PE (of the team) launches the same kernels in order.
    unsafe { kernel.launch_cooperative(LaunchShape::linear(1, THREADS), args) }
        .unwrap_or_else(|error| panic!("launching {name}: {error}"));
    nvshmem
        .synchronize()
        .unwrap_or_else(|error| panic!("running {name}: {error}"));
}

/// Milliseconds since `started` (tests print their phases' times for the suite logs).
pub(crate) fn elapsed_ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1e3
}

/// Panics with the first mismatches if `got[i] != expected(i)` for some `i`.
pub(crate) fn check<T: PartialEq + Debug>(
    what: &str,
    me: i32,
    got: &[T],
    expected: impl Fn(usize) -> T,
) {
    let wrong: Vec<String> = got
        .iter()
        .enumerate()
        .filter_map(|(i, value)| {
            let want = expected(i);
            (*value != want).then(|| format!("[{i}] = {value:?}, expected {want:?}"))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "PE {me}: {what}: {} wrong, first: {}",
        wrong.len(),
        wrong.iter().take(6).cloned().collect::<Vec<_>>().join("; ")
    );
}

/// A zeroed symmetric buffer of `$len` `$t`s.
macro_rules! zeroed {
    ($nvshmem:expr, $t:ty, $len:expr) => {
        $nvshmem
            .alloc_zeroed::<$t>($len)
            .expect("symmetric allocation")
    };
}

/// A symmetric buffer of `$len` elements, element `i` being `$value(i)`.
macro_rules! filled {
    ($nvshmem:expr, $len:expr, $value:expr) => {{
        let mut buffer = $nvshmem.alloc($len).expect("symmetric allocation");
        buffer
            .copy_from_host(&(0..$len).map($value).collect::<Vec<_>>())
            .expect("copy to the GPU");
        buffer
    }};
}

pub(crate) use {filled, zeroed};

/// NVSHMEM, initialised as the launcher started this process, for at most `MAX_PES` PEs.
pub(crate) fn init() -> Nvshmem {
    // The host's diagnostics (a slow module load, which image was loaded) reach the suite's logs;
    // tests that run in one process share the logger that the first one set up.
    let _ = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .try_init();
    let nvshmem = Nvshmem::init().expect("NVSHMEM initialises");
    assert!(
        nvshmem.n_pes() as usize <= MAX_PES,
        "the kernels handle at most {MAX_PES} PEs"
    );
    nvshmem
}

/// Panics unless NVSHMEM runs in its full multi-PE-per-GPU mode, which team splits, team barriers
/// and collectives need where PEs share a GPU.
pub(crate) fn require_full_mpg(nvshmem: &Nvshmem) {
    let status = nvshmem.init_status();
    assert!(
        status.supports_teams_and_collectives(),
        "NVSHMEM runs in {status:?} mode: team splits, team barriers and collectives with several \
         PEs per GPU need MPS (nvidia-cuda-mps-control -d) and CUDA_MPS_ACTIVE_THREAD_PERCENTAGE ≤ \
         100 / PEs per GPU in every PE's environment"
    );
}
