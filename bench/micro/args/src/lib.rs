//! The micro-benchmarks' command line. `bench/reference/micro.cu` reads the same flags.

use clap::{Parser, ValueEnum};
use nvshmem_launch::cli::JobArgs;

/// One benchmark, as `--bench` and the kernels name it ([`Bench::name`]). Declared in the order
/// they run (the two-sided ones, which need every PE, last; the collectives, which need NVSHMEM's
/// full multi-PE-per-GPU mode where PEs share a GPU, at the very end).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "snake_case")]
#[expect(
    missing_docs,
    reason = "named as their kernels; a variant's doc comment would become --help text"
)]
pub enum Bench {
    PutBw,
    GetBw,
    PLat,
    PutLat,
    BarrierLat,
    PingpongP,
    PingpongSignal,
    ReduceLat,
    AlltoallLat,
}

impl Bench {
    /// The name of its kernel, its results and its `--bench` value.
    pub fn name(self) -> &'static str {
        match self {
            Bench::PutBw => "put_bw",
            Bench::GetBw => "get_bw",
            Bench::PLat => "p_lat",
            Bench::PutLat => "put_lat",
            Bench::BarrierLat => "barrier_lat",
            Bench::PingpongP => "pingpong_p",
            Bench::PingpongSignal => "pingpong_signal",
            Bench::ReduceLat => "reduce_lat",
            Bench::AlltoallLat => "alltoall_lat",
        }
    }
}

/// Which threads share one NVSHMEM call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[expect(
    missing_docs,
    reason = "named as their scopes; a variant's doc comment would become --help text"
)]
pub enum Scope {
    Block,
    Warp,
    Thread,
}

impl Scope {
    /// The name of its kernels' suffix, its results and its `--scopes` value.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Block => "block",
            Scope::Warp => "warp",
            Scope::Thread => "thread",
        }
    }
}

/// A grid size: a block count, or the GPU's multiprocessor count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grid {
    /// This many blocks.
    Blocks(u32),
    /// One block per multiprocessor of the GPU.
    Sms,
}

/// Micro-benchmarks of NVSHMEM device calls from Rust kernels; PE 0 prints one `result:` line
/// per measurement.
///
/// Started directly, it relaunches itself through the launcher on 2 PEs sharing one GPU unless -n
/// and --pes-per-gpu say otherwise; started by nvshmemrun, mpirun or srun, it is one PE.
/// RUST_LOG=nvshmem_host=debug shows what NVSHMEM found and chose.
#[derive(Parser, Debug, PartialEq)]
#[command(name = "micro", version)]
pub struct Options {
    /// The launcher's flags: `-n`, `--pes-per-gpu`, `--timeout`, `--mps`.
    #[command(flatten)]
    pub job: JobArgs,
    /// Benchmarks to run, in their fixed order whatever the order given [default: all]
    #[arg(long = "bench", value_name = "LIST", value_enum, value_delimiter = ',',
          default_values_t = Bench::value_variants().to_vec(), hide_default_value = true)]
    pub benches: Vec<Bench>,
    /// Scopes to run [default: all]
    #[arg(long, value_name = "LIST", value_enum, value_delimiter = ',',
          default_values_t = Scope::value_variants().to_vec(), hide_default_value = true)]
    pub scopes: Vec<Scope>,
    /// Bandwidth sizes in bytes, multiples of 8, with K/M/G suffixes (powers of 1024)
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = bytes,
          default_value = "4K,64K,1M,16M,256M", allow_hyphen_values = true)]
    pub sizes: Vec<usize>,
    /// Put-latency and collective sizes (an alltoall's per PE), as --sizes
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = bytes,
          default_value = "8,4K,64K", allow_hyphen_values = true)]
    pub lat_sizes: Vec<usize>,
    /// Blocks per launch, `sms` for the multiprocessor count
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = grid,
          default_value = "1,8,32,sms", allow_hyphen_values = true)]
    pub grids: Vec<Grid>,
    /// Threads per block: a multiple of 32 up to 1024
    #[arg(long, value_name = "T", default_value_t = 512, value_parser = threads,
          allow_hyphen_values = true)]
    pub threads: u32,
    /// Untimed launches per case
    #[arg(
        long,
        value_name = "W",
        default_value_t = 2,
        allow_hyphen_values = true
    )]
    pub warmup: u32,
    /// Timed launches per case; the median is reported
    #[arg(long, value_name = "R", default_value_t = 10, value_parser = whole,
          allow_hyphen_values = true)]
    pub reps: u32,
    /// Operations per latency launch
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = whole,
          allow_hyphen_values = true)]
    pub lat_iters: u32,
    /// Bytes left free between the source and the destination buffer, 0 or as --sizes: the two lie
    /// the largest size plus this apart
    #[arg(long, value_name = "BYTES", default_value = "0", value_parser = gap,
          allow_hyphen_values = true)]
    pub gap: usize,
    /// Run the bandwidth kernels written on nvshmem-gpu's safe layer in place of the raw ones; their
    /// lines say impl=rust-safe
    #[arg(long)]
    pub safe: bool,
}

impl Options {
    /// The `impl=` of `bench`'s lines: `rust-safe` for the bandwidth cases under `--safe`.
    pub fn impl_name(&self, bench: Bench) -> &'static str {
        if self.safe && matches!(bench, Bench::PutBw | Bench::GetBw) {
            "rust-safe"
        } else {
            "rust"
        }
    }

    /// Launches per case: `--warmup` untimed ones, then `--reps` timed ones.
    pub fn launches(&self) -> usize {
        (self.warmup + self.reps) as usize
    }
}

/// `4096`, `4K`, `1M`, `2G` (powers of 1024), a multiple of 8 bytes (one `u64`).
fn bytes(text: &str) -> Result<usize, String> {
    let (digits, unit) = match text.char_indices().last() {
        Some((i, 'K' | 'k')) => (&text[..i], 1 << 10),
        Some((i, 'M' | 'm')) => (&text[..i], 1 << 20),
        Some((i, 'G' | 'g')) => (&text[..i], 1 << 30),
        _ => (text, 1),
    };
    let value = digits
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(unit))
        .filter(|&n| n > 0 && n % 8 == 0)
        .ok_or_else(|| "expected a size in bytes ≥ 8 and a multiple of 8, e.g. 4K".to_string())?;
    Ok(value)
}

/// `--gap`: 0, or a size as [`bytes`] reads it.
fn gap(text: &str) -> Result<usize, String> {
    if text == "0" { Ok(0) } else { bytes(text) }
}

/// A count of at least 1.
fn whole(text: &str) -> Result<u32, String> {
    text.parse::<u32>()
        .ok()
        .filter(|&n| n >= 1)
        .ok_or_else(|| format!("expected a whole number from 1 to {}", u32::MAX))
}

/// One `--grids` entry.
fn grid(text: &str) -> Result<Grid, String> {
    match text {
        "sms" => Ok(Grid::Sms),
        _ => whole(text)
            .map(Grid::Blocks)
            .map_err(|_| "expected a block count of at least 1, or `sms`".to_string()),
    }
}

/// `--threads`.
fn threads(text: &str) -> Result<u32, String> {
    whole(text)
        .ok()
        .filter(|&t| t % 32 == 0 && t <= 1024)
        .ok_or_else(|| "expected a multiple of 32 from 32 to 1024".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use nvshmem_launch::cli::{assert_help_and_version, assert_usage_errors};

    fn parse(line: &str) -> Result<Options, clap::Error> {
        Options::try_parse_from(std::iter::once("micro").chain(line.split_whitespace()))
    }

    #[test]
    fn sizes_take_binary_suffixes() {
        let options = parse("--sizes 8,4K,1M,2G --grids 1,sms").unwrap();
        assert_eq!(options.sizes, [8, 4096, 1 << 20, 2 << 30]);
        assert_eq!(options.grids, [Grid::Blocks(1), Grid::Sms]);
        assert!(parse("--sizes 12").is_err());
        assert!(parse("--bench nope").is_err());
        assert!(parse("--threads 100").is_err());
    }

    #[test]
    fn the_gap_is_zero_or_a_size() {
        assert_eq!(parse("").unwrap().gap, 0);
        assert_eq!(parse("--gap 0").unwrap().gap, 0);
        assert_eq!(parse("--gap 3M").unwrap().gap, 3 << 20);
        assert!(parse("--gap 5").is_err());
        assert!(parse("--gap -1").is_err());
    }

    #[test]
    fn every_benchmark_is_named_by_its_own_name_and_runs_by_default() {
        let names: Vec<&str> = Bench::value_variants()
            .iter()
            .map(|bench| bench.name())
            .collect();
        let options = parse(&format!("--bench {}", names.join(","))).unwrap();
        assert_eq!(options.benches, Bench::value_variants());
        assert_eq!(parse("").unwrap().benches, Bench::value_variants());
        let collectives = parse("--bench reduce_lat,alltoall_lat").unwrap();
        assert_eq!(collectives.benches, [Bench::ReduceLat, Bench::AlltoallLat]);
    }

    #[test]
    fn bad_values_name_the_flag_and_what_it_takes() {
        assert_usage_errors::<Options>(&[
            (
                "--sizes 12",
                "'12' for '--sizes <LIST>': expected a size in bytes",
            ),
            ("--sizes 4K,,8", "'' for '--sizes <LIST>'"),
            ("--bench nope", "[possible values: put_bw, get_bw, p_lat"),
            ("--scopes grid", "[possible values: block, warp, thread]"),
            (
                "--grids 0",
                "'0' for '--grids <LIST>': expected a block count",
            ),
            (
                "--threads 100",
                "'100' for '--threads <T>': expected a multiple of 32",
            ),
            ("--reps 0", "'0' for '--reps <R>'"),
            ("--warmup -1", "'-1' for '--warmup <W>'"),
            ("--gap -1", "'-1' for '--gap <BYTES>'"),
            ("-n 0", "'0' for '--n-pes <N>'"),
            ("--timeout 0", "'0' for '--timeout <S>'"),
            ("--frobnicate 2", "'--frobnicate'"),
        ]);
    }

    #[test]
    fn help_and_version_exit_0_and_help_names_every_flag() {
        assert_help_and_version::<Options>();
    }
}
