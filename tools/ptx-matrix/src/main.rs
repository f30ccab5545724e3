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
use std::sync::Mutex;
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
    let nvshmem = absolute(&args.nvshmem)?;
    let crates = args
        .crates
        .iter()
        .map(|path| absolute(path))
        .collect::<Result<Vec<_>, _>>()?;
    // One worker per core, each taking whole architectures: the crates of one architecture share a
    // kernel folder, which cargo locks, so they build one after another.
    let workers = std::thread::available_parallelism().map_or(1, usize::from);
    let next_arch = Mutex::new(args.arch.iter());
    let failed = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..workers.min(args.arch.len()) {
            scope.spawn(|| {
                loop {
                    // The lock is held for this statement only.
                    let Some(arch) = next_arch.lock().unwrap().next() else {
                        break;
                    };
                    for (kernel_crate, shown) in crates.iter().zip(&args.crates) {
                        let job =
                            format!("{} for {arch} against NVSHMEM {release}", shown.display());
                        if let Err(error) =
                            build(&nvshmem, &target_dir, release, arch, kernel_crate, &job)
                        {
                            eprintln!("FAILED {job}:\n{error}");
                            failed.lock().unwrap().push(job);
                        }
                    }
                }
            });
        }
    });
    let failed = failed.into_inner().unwrap();
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

/// Builds and assembles one crate for one architecture; prints its line.
fn build(
    nvshmem: &Path,
    target_dir: &Path,
    release: nvshmem_locate::Version,
    arch: &str,
    kernel_crate: &Path,
    job: &str,
) -> Result<(), String> {
    let started = Instant::now();
    // Cargo's layout for a build script's output, so that the builder shares the debug profile's
    // kernel folders.
    let out_dir = target_dir.join(format!("debug/build/ptx-matrix-{release}-{arch}/out"));
    let built = nvshmem_builder::PtxBuilder::new(kernel_crate)
        .nvshmem(nvshmem)
        .arch(arch)
        .checks(true)
        .out_dir(&out_dir)
        .compile()
        .map_err(|error| error.to_string())?;
    if !built.assembled {
        return Err(
            "ptxas was not found, so nothing was assembled; put CUDA's bin folder or \
             .deps/python/nvidia/cu13/bin (`./x deps`) on PATH, or set PTXAS"
                .into(),
        );
    }
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
    Ok(())
}
