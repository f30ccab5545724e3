//! Builds every kernel crate of the examples and benchmarks (`examples/*/kernels`,
//! `bench/*/kernels`) to PTX; runners include it with `include_str!(env!("<PACKAGE>_PTX"))`. The
//! device checks of PE arguments follow the profile, except where `device_checks` fixes them;
//! `register_limits` caps the registers of kernels whose occupancy matters.

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
        let mut builder = nvshmem_builder::PtxBuilder::new(&kernels);
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
/// Jacobi's persistent kernel needs 88 registers, 5 blocks of 128 threads per multiprocessor (the
/// CUDA C++ kernel: 60, 8 blocks). Capped at 80 it spills 8 bytes and fits 6 blocks; at 72, 20
/// bytes and 7 blocks; at 64, 72 bytes, 8 blocks, and ran 20 % slower
/// (bench/results/bench-2026-11-29-1634.md, notes). 72 against 80 on the H200, 16384², 3 rounds
/// (bench/results/jacobi-registers-2026-11-30.txt): 2.0 and 1.6 % slower at 1 and 2 PEs, 4.9 %
/// faster at 4 PEs under MPS; of CUDA C++'s time 0.956 / 1.006 / 1.001 against 0.937 / 0.990 /
/// 1.053, so no PE count is more than 1 % behind.
fn register_limits(program: &str) -> &'static [(&'static str, u32)] {
    match program {
        "jacobi" => &[("jacobi_persistent", 72)],
        _ => &[],
    }
}
