//! Links kernel crates against one NVSHMEM install for several GPU architectures and assembles each
//! with `ptxas`: CI's proof that every kernel builds for every (release, architecture) the project
//! supports, beyond the one its build scripts use.
//!
//! ```text
//! cargo run -p ptx-matrix -- --nvshmem .deps/nvshmem-3.8/nvidia/nvshmem --arch sm_80,sm_90 examples/ring/kernels
//! ```
//!
//! Each crate is built as the build scripts of `cargo test` build it (device checks on), in the
//! same kernel folders (`target/debug/nvshmem-kernels/<release>-<arch>`), so the release and
//! architecture those scripts use is already built, and a second run only assembles.

use clap::Parser;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Links kernel crates against one NVSHMEM install for each architecture given and assembles the
/// PTX with ptxas; prints one line per (crate, architecture) and fails if any fails.
#[derive(Parser)]
struct Args {
    /// The NVSHMEM install: the folder holding lib/ (host library, device bitcode) and include/.
    #[arg(long)]
    nvshmem: PathBuf,
    /// The GPU architectures, e.g. `sm_80,sm_90` (or the option repeated).
    #[arg(long, value_delimiter = ',', required = true)]
    arch: Vec<String>,
    /// The cargo target folder whose debug profile's kernel folders are shared.
    #[arg(long, default_value = "target")]
    target_dir: PathBuf,
    /// The kernel crates: folders with a Cargo.toml.
    #[arg(required = true)]
    crates: Vec<PathBuf>,
}

fn main() -> ExitCode {
    // The builder runs this program again as the kernels' linker, with rustc's arguments.
    nvshmem_builder::run_if_invoked_as_linker();
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("ptx-matrix: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    let release = nvshmem_locate::Install::at(&args.nvshmem, nvshmem_locate::Source::HomeVariable)
        .map_err(|attempt| format!("{}: {}", attempt.tried, attempt.reason))?
        .version()
        .map_err(|error| error.to_string())?;
    // Absolute paths: under `cargo run` the builder would take relative ones from this package.
    let absolute = |path: &Path| {
        std::path::absolute(path).map_err(|error| format!("{}: {error}", path.display()))
    };
    let target_dir = absolute(&args.target_dir)?;
    let mut failed = Vec::new();
    for arch in &args.arch {
        // Cargo's layout for a build script's output, so that the builder shares the debug
        // profile's kernel folders.
        let out_dir = target_dir.join(format!("debug/build/ptx-matrix-{release}-{arch}/out"));
        for kernel_crate in &args.crates {
            let started = Instant::now();
            let built = nvshmem_builder::PtxBuilder::new(absolute(kernel_crate)?)
                .nvshmem(absolute(&args.nvshmem)?)
                .arch(arch)
                .checks(true)
                .out_dir(&out_dir)
                .compile();
            let job = format!(
                "{} for {arch} against NVSHMEM {release}",
                kernel_crate.display()
            );
            match built {
                Ok(built) if built.assembled => {
                    for line in &built.warnings {
                        eprintln!("warning: {}: {line}", built.package);
                    }
                    println!(
                        "assembled {job}: {} kernels, PTX ISA {}.{}, {:.1} s",
                        built.kernels.len(),
                        built.ptx_isa / 10,
                        built.ptx_isa % 10,
                        started.elapsed().as_secs_f64()
                    );
                }
                Ok(_) => {
                    return Err(format!(
                        "{job}: ptxas was not found, so nothing was assembled; put CUDA's bin \
                         folder or .deps/python/nvidia/cu13/bin (`./x deps`) on PATH, or set PTXAS"
                    ));
                }
                Err(error) => {
                    eprintln!("FAILED {job}:\n{error}");
                    failed.push(job);
                }
            }
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} of {} builds failed: {}",
            failed.len(),
            args.arch.len() * args.crates.len(),
            failed.join("; ")
        ))
    }
}
