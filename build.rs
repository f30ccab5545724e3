//! Builds every kernel crate of the examples and benchmarks (`examples/*/kernels`,
//! `bench/*/kernels`) to PTX; runners include it with `include_str!(env!("<PACKAGE>_PTX"))`.

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
        if let Err(error) = nvshmem_builder::PtxBuilder::new(&kernels).build() {
            eprintln!("error: building {}: {error}", kernels.display());
            std::process::exit(1);
        }
    }
}
