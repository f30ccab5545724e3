//! GPU tests of the device API (`nvshmem-gpu`) and of the host's teams and on-stream operations:
//! one module per family, its tests checking the values the kernels of `kernels/` and
//! `teams-kernels/` leave behind; among them a test of put-with-signal's ordering that the kernel
//! checks as it runs, beside the same check with a planted defect, and a test that plain loads
//! after a signal wait read reused slots' new data (its defect planted by setting
//! `DEVICE_API_PLANT_MISSING_ACQUIRE`). They need a GPU and NVSHMEM, so they are `#[ignore]`d
//! here; `gpu-suite/cases/30-device-api.sh` runs each in its own set of processes at 2 and 4 PEs on
//! one GPU. With the package's `nvshmem-only` feature they run on the kernels built with
//! `nvshmem-gpu`'s load/store path off, so that every transfer, put with signal and collective is
//! NVSHMEM's own call (`./x gpu-bundle` carries that build as `gpu_device_api_nvshmem_only`); each
//! test passing both ways shows that the two paths leave the same results.
//!
//! - Tests named `full_mpg_*` need NVSHMEM's full multi-PE-per-GPU mode (team splits, team
//!   barriers, collectives): MPS running and `CUDA_MPS_ACTIVE_THREAD_PERCENTAGE` ≤ 100 / PEs in
//!   every PE's environment. They fail with a message saying so otherwise.
//! - Tests named `trap_*` check the debugging timeouts. Started alone (not as a PE), such a test
//!   relaunches itself on `DEVICE_API_TRAP_PES` PEs (default 2) through the launcher and passes when
//!   that job fails, promptly, with the device's message; as a PE it runs the kernel that traps.
//! - The others run anywhere several PEs share a GPU, with or without MPS.
//!
//! The families: [`rma`], [`signals`], [`signal_order`], [`slot_reuse`], [`p2p`] (waits and tests),
//! [`atomics`], [`world`] (barriers and queries over all PEs), [`collectives`] (teams),
//! [`on_stream`] and [`traps`]; what they share is in [`support`].

use device_api_layout as layout;

mod atomics;
mod collectives;
mod on_stream;
mod p2p;
mod rma;
mod signal_order;
mod signals;
mod slot_reuse;
mod support;
mod traps;
mod world;

use collectives::TEAM_KERNELS;
use support::{IMAGE, TEAMS_IMAGE};

/// Runs on the CPU, in CI: the builder produced both modules (it has assembled them with `ptxas`
/// already) with every kernel the families' tests launch.
#[test]
fn both_modules_export_the_kernels_the_tests_launch() {
    let entries = |ptx: &str| -> Vec<String> {
        ptx.lines()
            .filter_map(|line| line.strip_prefix(".visible .entry "))
            .filter_map(|rest| rest.split('(').next())
            .map(str::to_string)
            .collect()
    };
    let light = entries(IMAGE.ptx());
    for kernel in [
        "rma_families",
        "signal_families",
        "signal_order",
        "slot_reuse",
        "p2p_families",
        "atomic_families",
        "world_sync",
        "wait_for_nobody",
        "barrier_missing_last_pe",
        "safe_atomics_and_grid",
    ] {
        assert!(
            light.iter().any(|entry| entry == kernel),
            "no {kernel} in {light:?}"
        );
    }
    let teams = entries(TEAMS_IMAGE.ptx());
    for kernel in TEAM_KERNELS.iter().chain(&["safe_collectives"]) {
        assert!(
            teams.iter().any(|entry| entry == kernel),
            "no {kernel} in {teams:?}"
        );
    }
    for image in [IMAGE, TEAMS_IMAGE] {
        assert!(image.ptx().contains("nvshmemi_device_lib_version_d"));
    }
}
