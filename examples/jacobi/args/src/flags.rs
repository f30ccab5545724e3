//! The flags both Jacobi runners share and the checks across them.

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, ValueEnum};
use nvshmem_halo::{Decomposition2d, ProcessGrid, Tiling};
use nvshmem_launch::cli::JobArgs;
use std::ffi::OsString;

/// The iteration after whose exchange `--stale-halo` plants its defect.
pub const STALE_ITERATION: u32 = 0;

/// The flags both runners take; each runner flattens them into its own `clap::Parser`, beside its
/// `--variant` (and `--grid`), and hands them back through `Options::with_variant`.
///
/// Values may start with a hyphen (`--append-result -a`, `--nx -5`), so that a bad one is refused
/// naming its flag instead of being read as a flag of its own.
#[derive(clap::Args, Debug, Clone, PartialEq)]
pub struct Options {
    /// The launcher's flags: `-n`, `--pes-per-gpu`, `--timeout`.
    #[command(flatten)]
    pub job: JobArgs,
    /// `--variant`, one of the runner's (set by `Options::with_variant`).
    #[arg(skip)]
    pub variant: String,
    /// Cells per row, the fixed edges included
    #[arg(allow_hyphen_values = true, long, value_name = "N", default_value_t = 16384, value_parser = side)]
    pub nx: usize,
    /// Rows, the fixed edges included
    #[arg(allow_hyphen_values = true, long, value_name = "N", default_value_t = 16384, value_parser = side)]
    pub ny: usize,
    /// Iterations
    #[arg(allow_hyphen_values = true, long, value_name = "K", default_value_t = 1000,
          value_parser = positive)]
    pub iters: u32,
    /// Compute the residual norm every M iterations (and after the last)
    #[arg(allow_hyphen_values = true, long, value_name = "M", default_value_t = 1,
          value_parser = positive)]
    pub norm_every: u32,
    /// Compare every cell with a single-GPU run (and a CPU run on small problems)
    #[arg(long)]
    pub check: bool,
    /// Plant a defect for --check to find: a halo one iteration late (needs --check, -n 2 or more,
    /// --iters 2 or more, and a variant that launches each iteration)
    #[arg(long)]
    pub stale_halo: bool,
    /// Capture K iterations into a CUDA graph (two graphs, for alternate chunks of K) and replay
    /// them; K divides --iters and is a multiple of --norm-every, for a variant that launches each
    /// iteration
    #[arg(allow_hyphen_values = true, long, value_name = "K", value_parser = positive)]
    pub graph: Option<u32>,
    /// Threads per block: a multiple of 32 up to 1024
    #[arg(allow_hyphen_values = true, long, value_name = "THREADS", default_value_t = 128, value_parser = block_x)]
    pub block_x: u32,
    /// Rows each thread computes per band
    #[arg(allow_hyphen_values = true, long = "rows-per-thread", value_name = "R", default_value_t = 8,
          value_parser = positive)]
    pub rows_per_band: u32,
    /// Append the machine-readable `result:` line to FILE
    #[arg(allow_hyphen_values = true, long, value_name = "FILE")]
    pub append_result: Option<String>,
    /// `--grid PXxPY`, where the runner takes it (set by the runner).
    #[arg(skip)]
    pub grid: Option<ProcessGrid>,
}

impl Options {
    /// These options with the runner's `--variant`.
    pub(crate) fn with_variant(self, variant: impl ValueEnum) -> Options {
        let name = variant.to_possible_value().expect("no variant is skipped");
        Options {
            variant: name.get_name().to_string(),
            ..self
        }
    }

    /// The stencil kernels' tiling: `--block-x`, `--rows-per-thread`, and 4 columns per thread,
    /// the kernels' `VECTOR` (they refuse another value).
    pub fn tiling(&self) -> Tiling {
        Tiling {
            block_x: self.block_x,
            rows_per_band: self.rows_per_band,
            vector: 4,
        }
    }
}

/// What a runner's flags may be, beside the shared ones: what `parse` checks across flags.
pub struct Rules {
    /// Its variants that run every iteration in one launch, into which `--stale-halo` cannot plant.
    pub single_launch: &'static [&'static str],
    /// Its variants that `--graph` cannot capture, each with the reason.
    pub no_graph: &'static [(&'static str, &'static str)],
    /// The variants `--graph` captures, as a refusal suggests them (`put-block or p`).
    pub graphable: &'static str,
    /// Splits the interior over `n_pes` PEs.
    pub decompose: fn(&Options, usize) -> Result<Decomposition2d, String>,
}

/// The most PEs `-n` starts on this machine.
pub(crate) const MAX_PES: usize = 1024;
/// The longest side `--nx` and `--ny` take; far beyond what fits a GPU, and small enough that no
/// size computed from it overflows.
const MAX_SIDE: usize = 1 << 31;

/// A side of the grid: the fixed edges and at least one interior cell.
fn side(text: &str) -> Result<usize, String> {
    text.parse()
        .ok()
        .filter(|side| (3..=MAX_SIDE).contains(side))
        .ok_or_else(|| {
            format!(
                "expected a whole number from 3 to {MAX_SIDE} (the fixed edges and at least one \
                 interior cell)"
            )
        })
}

/// A count of at least 1; clap's own range parser says only "number too large" above `u32::MAX`.
fn positive(text: &str) -> Result<u32, String> {
    text.parse::<u32>()
        .ok()
        .filter(|&v| v > 0)
        .ok_or_else(|| format!("expected a whole number from 1 to {}", u32::MAX))
}

/// Threads per block.
fn block_x(text: &str) -> Result<u32, String> {
    text.parse::<u32>()
        .ok()
        .filter(|&v| v > 0 && v <= 1024 && v.is_multiple_of(32))
        .ok_or_else(|| "expected a multiple of 32 from 32 to 1024".to_string())
}

/// Reads the command line `args` (without the program's name) with the runner's parser `A`, then
/// checks what clap cannot: the flags against each other. Every refusal is a clap usage error
/// (exit status 2) that names the flag and the fix; `--help` and `--version` come back as errors
/// of their kinds (exit status 0).
pub fn parse<A: Parser + Into<Options>>(
    rules: &Rules,
    args: impl IntoIterator<Item = impl Into<OsString> + Clone>,
) -> Result<Options, clap::Error> {
    let name = OsString::from(A::command().get_name());
    let options: Options =
        A::try_parse_from(std::iter::once(name).chain(args.into_iter().map(Into::into)))?.into();
    check_across_flags(rules, &options).map_err(usage_error::<A>)?;
    Ok(options)
}

/// A usage error of `A`'s command line, printed in clap's style.
pub fn usage_error<A: CommandFactory>(problem: String) -> clap::Error {
    A::command().error(ErrorKind::ValueValidation, problem)
}

/// What clap cannot check: `-n` against the problem (and the grid), and `--stale-halo` against
/// everything it needs. `Err` starts with the flag it is about and says what to pass instead.
fn check_across_flags(rules: &Rules, options: &Options) -> Result<(), String> {
    if let Some(n) = options.job.n_pes {
        if n.get() > MAX_PES {
            return Err(format!(
                "-n {n}: at most {MAX_PES} PEs run on one machine; use -n {MAX_PES} or fewer"
            ));
        }
        (rules.decompose)(options, n.get()).map_err(|problem| format!("-n {n}: {problem}"))?;
    }
    if options.stale_halo {
        let problem = if !options.check {
            Some("plants a defect for --check to find; use it with --check")
        } else if options.iters <= STALE_ITERATION + 1 {
            Some(
                "spoils a halo after the first iteration for the next to read; use --iters 2 or more",
            )
        } else if rules.single_launch.contains(&options.variant.as_str()) {
            Some(
                "cannot plant into a variant whose iterations run in one launch; use another --variant",
            )
        } else if options.job.n_pes.is_some_and(|n| n.get() < 2) {
            Some(STALE_HALO_NEEDS_PES)
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(format!("--stale-halo {problem}"));
        }
    }
    if let Some(k) = options.graph {
        check_graph(rules, options, k).map_err(|problem| format!("--graph {k} {problem}"))?;
    }
    Ok(())
}

/// What `--graph K` needs: a variant whose iterations are launches and on-stream operations that
/// repeat alike, so that two graphs replayed in turn are the same work as the loop; `K` dividing
/// `--iters`, so that the run is whole graphs; and `K` a multiple of `--norm-every`, so that every
/// graph computes the norm at the same places, its last iteration among them.
fn check_graph(rules: &Rules, options: &Options, k: u32) -> Result<(), String> {
    let variant = options.variant.as_str();
    if let Some((_, why)) = rules.no_graph.iter().find(|(name, _)| *name == variant) {
        return Err(format!(
            "cannot capture --variant {variant}: {why}; use --variant {}, or leave out --graph",
            rules.graphable
        ));
    }
    if !options.iters.is_multiple_of(k) {
        let more = options.iters.div_ceil(k).saturating_mul(k);
        return Err(format!(
            "does not divide --iters {} (the run replays whole graphs of K iterations); use \
             --iters {more}, or a K that divides {}",
            options.iters, options.iters
        ));
    }
    if !k.is_multiple_of(options.norm_every) {
        return Err(format!(
            "is not a multiple of --norm-every {} (every graph computes the norm at the same \
             iterations, its last among them); use --graph {} and --iters a multiple of it, or \
             --norm-every a divisor of {k}",
            options.norm_every,
            k.div_ceil(options.norm_every)
                .saturating_mul(options.norm_every)
        ));
    }
    Ok(())
}

/// Why `--stale-halo` on one PE is refused.
pub const STALE_HALO_NEEDS_PES: &str = "needs a neighbour whose halo to spoil; use -n 2 or more";
