//! Links kernel crates against one NVSHMEM install for several GPU architectures and assembles each
//! with `ptxas`: CI's proof that every kernel builds for every (release, architecture) the project
//! supports, beyond the one its build scripts use.
//!
//! ```text
//! cargo run -p ptx-matrix -- --nvshmem .deps/nvshmem-3.8/nvidia/nvshmem --arch sm_80,sm_90 examples/ring/kernels
//! ```
//!
//! Each crate is built as the build scripts of `cargo test` build it (device checks on), in the
//! debug profile's kernel folders (`target/debug/nvshmem-kernels/<release>-<archs>`, the
//! architectures joined by `+`), so a single release and architecture those scripts use is
//! already built, and a second run only assembles. Its Rust code is compiled once for all the
//! architectures (see `PtxBuilder::compile_for`).

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
    // One worker per core, each taking whole crates; a crate's architectures are linked and
    // assembled in parallel. The crates share a kernel folder, which cargo locks while it compiles,
    // so a worker compiles while the other assembles.
    let workers = std::thread::available_parallelism().map_or(1, usize::from);
    let archs: Vec<&str> = args.arch.iter().map(String::as_str).collect();
    let next_crate = Mutex::new(crates.iter().zip(&args.crates));
    let failed = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..workers.min(crates.len()) {
            scope.spawn(|| {
                loop {
                    // The lock is held for this statement only.
                    let Some((kernel_crate, shown)) = next_crate.lock().unwrap().next() else {
                        break;
                    };
                    let job = format!(
                        "{} for {} against NVSHMEM {release}",
                        shown.display(),
                        archs.join(", ")
                    );
                    if let Err(error) =
                        build(&nvshmem, &target_dir, release, &archs, kernel_crate, shown)
                    {
                        eprintln!("FAILED {job}:\n{error}");
                        failed.lock().unwrap().push(job);
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
            "{} of {} crates failed: {}",
            failed.len(),
            args.crates.len(),
            failed.join("; ")
        ))
    }
}

/// Builds and assembles one crate for every architecture; prints one line per architecture.
fn build(
    nvshmem: &Path,
    target_dir: &Path,
    release: nvshmem_locate::Version,
    archs: &[&str],
    kernel_crate: &Path,
    shown: &Path,
) -> Result<(), String> {
    let started = Instant::now();
    // Cargo's layout for a build script's output, so that the builder shares the debug profile's
    // kernel folders.
    let out_dir = target_dir.join(format!("debug/build/ptx-matrix-{release}/out"));
    let built = nvshmem_builder::PtxBuilder::new(kernel_crate)
        .nvshmem(nvshmem)
        .checks(true)
        .out_dir(&out_dir)
        .compile_for(archs)
        .map_err(|error| error.to_string())?;
    if built.iter().any(|ptx| !ptx.assembled) {
        return Err(
            "ptxas was not found, so nothing was assembled; put CUDA's bin folder or \
             .deps/python/nvidia/cu13/bin (`./x deps`) on PATH, or set PTXAS"
                .into(),
        );
    }
    for line in built.first().map_or(&[][..], |ptx| &ptx.warnings) {
        eprintln!("warning: {}: {line}", built[0].package);
    }
    // The time is the crate's, for all its architectures together.
    let seconds = started.elapsed().as_secs_f64();
    for ptx in &built {
        println!(
            "assembled {} for {} against NVSHMEM {release}: {} kernels, PTX ISA {}.{}, {seconds:.1} s",
            shown.display(),
            ptx.arch,
            ptx.kernels.len(),
            ptx.ptx_isa / 10,
            ptx.ptx_isa % 10,
        );
    }
    Ok(())
}
