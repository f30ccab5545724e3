//! Builds every kernel crate of the examples and benchmarks (`examples/*/kernels`,
//! `bench/*/kernels`) to PTX; runners include it with `include_str!(env!("<PACKAGE>_PTX"))`. The
//! device checks of PE arguments follow the profile, except where `device_checks` fixes them;
//! `register_limits` caps the registers of kernels whose occupancy matters. The device-API kernels
//! are built a second time with `nvshmem-gpu`'s load/store path off (`*_NVSHMEM_ONLY_PTX`), so
//! that the `gpu_device_api_nvshmem_only` tests check NVSHMEM's own path with the same kernels.

use std::path::PathBuf;

fn main() {
    // The builder runs this script again as the kernels' linker; that run must not list folders.
    nvshmem_builder::run_if_invoked_as_linker();
    let mut kernel_crates: Vec<PathBuf> = ["examples", "bench"]
        .iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flatten()
        .filter_map(|entry| Some(entry.ok()?.path().join("kernels")))
        .filter(|kernels| kernels.join("Cargo.toml").is_file())
        .collect();
    kernel_crates.sort();
    println!("cargo::rerun-if-changed=examples");
    println!("cargo::rerun-if-changed=bench");
    for kernels in kernel_crates {
        // The folder above `kernels/`: the example's or benchmark's name.
        let program = kernels
            .parent()
            .and_then(|dir| dir.file_name())
            .and_then(|name| name.to_str())
            .unwrap_or_default();
        for load_store in load_store_paths(program) {
            let mut builder = nvshmem_builder::PtxBuilder::new(&kernels).load_store(*load_store);
            if let Some(on) = device_checks(program) {
                builder = builder.checks(on);
            }
            for &(kernel, registers) in register_limits(program) {
                builder = builder.max_registers(kernel, registers);
            }
            if let Err(error) = builder.build() {
                eprintln!("error: building {}: {error}", kernels.display());
                std::process::exit(1);
            }
        }
    }
}

/// The builds of `program`'s kernels, by whether `nvshmem-gpu`'s load/store path is on
/// ([`nvshmem_builder::PtxBuilder::load_store`]): the device-API tests run both ways, everything
/// else with the path on.
fn load_store_paths(program: &str) -> &'static [bool] {
    match program {
        "device-api" | "device-api-teams" => &[true, false],
        _ => &[true],
    }
}

/// Whether the device checks of PE arguments of `program`'s kernels are fixed rather than following
/// the profile (on in debug builds): the GPU suite runs release builds, and there the faults example
/// must trap on its bad PE and the device-API tests show that no valid call trips a check; the
/// benchmarks measure the calls without checks.
fn device_checks(program: &str) -> Option<bool> {
    match program {
        "faults" | "device-api" | "device-api-teams" => Some(true),
        "micro" => Some(false),
        _ => None,
    }
}

/// Register limits of `program`'s kernels ([`nvshmem_builder::PtxBuilder::max_registers`]).
/// Jacobi's persistent kernel needs 88 registers, which fits 5 blocks of 128 threads per
/// multiprocessor (the CUDA C++ kernel: 60, 8 blocks). At 72 it spills a few bytes and fits 7
/// blocks; measured against 80, that kept every PE count within 1 % of CUDA C++, while 64 spilled
/// enough to run a fifth slower.
fn register_limits(program: &str) -> &'static [(&'static str, u32)] {
    match program {
        "jacobi" => &[("jacobi_persistent", 72)],
        _ => &[],
    }
}
