//! The micro-benchmarks' command line. `bench/reference/micro.cu` reads the same flags.

use std::num::NonZeroUsize;
use std::time::Duration;

pub const USAGE: &str = "\
usage: micro [-n PES] [--pes-per-gpu K] [--timeout SECONDS] [--bench LIST] [--scopes LIST]
             [--sizes LIST] [--lat-sizes LIST] [--grids LIST] [--threads T] [--warmup W]
             [--reps R] [--lat-iters N] [--gap BYTES]
  --bench      put_bw,get_bw,p_lat,put_lat,barrier_lat,pingpong_p,pingpong_signal,reduce_lat,
               alltoall_lat (default: all)
  --scopes     block,warp,thread (default: all)
  --sizes      bandwidth sizes in bytes, K/M/G suffixes (default 4K,64K,1M,16M,256M)
  --lat-sizes  put-latency and collective sizes, an alltoall's per PE (default 8,4K,64K)
  --grids      blocks per launch, `sms` for the multiprocessor count (default 1,8,32,sms)
  --threads    threads per block (default 512)
  --warmup     untimed launches per case (default 2)
  --reps       timed launches per case; the median is reported (default 10)
  --lat-iters  operations per latency launch (default 1000)
  --gap        bytes left free between the source and the destination buffer, 0 or K/M/G
               (default 0): the two lie the largest size plus this apart";

/// One benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    /// Every benchmark, in the order they run (the two-sided ones, which need every PE, last; the
    /// collectives, which need NVSHMEM's full multi-PE-per-GPU mode where PEs share a GPU, at the
    /// very end).
    pub const ALL: [Bench; 9] = [
        Bench::PutBw,
        Bench::GetBw,
        Bench::PLat,
        Bench::PutLat,
        Bench::BarrierLat,
        Bench::PingpongP,
        Bench::PingpongSignal,
        Bench::ReduceLat,
        Bench::AlltoallLat,
    ];

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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Block,
    Warp,
    Thread,
}

impl Scope {
    pub const ALL: [Scope; 3] = [Scope::Block, Scope::Warp, Scope::Thread];

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
    Blocks(u32),
    Sms,
}

pub struct Options {
    pub n_pes: Option<NonZeroUsize>,
    pub pes_per_gpu: Option<NonZeroUsize>,
    pub timeout: Option<Duration>,
    pub benches: Vec<Bench>,
    pub scopes: Vec<Scope>,
    pub sizes: Vec<usize>,
    pub lat_sizes: Vec<usize>,
    pub grids: Vec<Grid>,
    pub threads: u32,
    pub warmup: u32,
    pub reps: u32,
    pub lat_iters: u32,
    pub gap: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            n_pes: None,
            pes_per_gpu: None,
            timeout: None,
            benches: Bench::ALL.to_vec(),
            scopes: Scope::ALL.to_vec(),
            sizes: vec![4 << 10, 64 << 10, 1 << 20, 16 << 20, 256 << 20],
            lat_sizes: vec![8, 4 << 10, 64 << 10],
            grids: vec![
                Grid::Blocks(1),
                Grid::Blocks(8),
                Grid::Blocks(32),
                Grid::Sms,
            ],
            threads: 512,
            warmup: 2,
            reps: 10,
            lat_iters: 1000,
            gap: 0,
        }
    }
}

impl Options {
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
        .ok_or(format!(
            "`{text}` is not a size in bytes ≥ 8 and a multiple of 8"
        ))?;
    Ok(value)
}

fn list<T>(text: &str, item: impl Fn(&str) -> Result<T, String>) -> Result<Vec<T>, String> {
    let items = text
        .split(',')
        .filter(|part| !part.is_empty())
        .map(item)
        .collect::<Result<Vec<T>, String>>()?;
    if items.is_empty() {
        return Err(format!("`{text}` is an empty list"));
    }
    Ok(items)
}

fn named<T: Copy>(all: &[T], name: impl Fn(T) -> &'static str, text: &str) -> Result<T, String> {
    all.iter()
        .copied()
        .find(|&x| name(x) == text)
        .ok_or(format!(
            "`{text}` is not one of {}",
            all.iter().map(|&x| name(x)).collect::<Vec<_>>().join(", ")
        ))
}

fn whole(flag: &str, text: &str) -> Result<u32, String> {
    text.parse::<u32>()
        .ok()
        .filter(|&n| n >= 1)
        .ok_or(format!("{flag} takes a whole number ≥ 1, not `{text}`"))
}

fn non_zero(flag: &str, text: &str) -> Result<NonZeroUsize, String> {
    Ok(NonZeroUsize::MIN.saturating_add(whole(flag, text)? as usize - 1))
}

pub fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options::default();
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        let text = match flag.as_str() {
            "-h" | "--help" => return Err(String::new()),
            _ => args.next().ok_or(format!("{flag} needs a value"))?,
        };
        match flag.as_str() {
            "-n" => options.n_pes = Some(non_zero(flag, text)?),
            "--pes-per-gpu" => options.pes_per_gpu = Some(non_zero(flag, text)?),
            "--timeout" => {
                options.timeout = Some(Duration::from_secs(whole(flag, text)?.into()));
            }
            "--bench" => options.benches = list(text, |t| named(&Bench::ALL, Bench::name, t))?,
            "--scopes" => options.scopes = list(text, |t| named(&Scope::ALL, Scope::name, t))?,
            "--sizes" => options.sizes = list(text, bytes)?,
            "--lat-sizes" => options.lat_sizes = list(text, bytes)?,
            "--grids" => {
                options.grids = list(text, |t| match t {
                    "sms" => Ok(Grid::Sms),
                    _ => Ok(Grid::Blocks(whole("--grids", t)?)),
                })?
            }
            "--threads" => {
                options.threads = whole(flag, text)?;
                if options.threads % 32 != 0 || options.threads > 1024 {
                    return Err(format!("--threads {text}: a multiple of 32, at most 1024"));
                }
            }
            "--warmup" => options.warmup = text.parse().map_err(|_| format!("--warmup {text}"))?,
            "--reps" => options.reps = whole(flag, text)?,
            "--lat-iters" => options.lat_iters = whole(flag, text)?,
            "--gap" => options.gap = if text == "0" { 0 } else { bytes(text)? },
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(options)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn sizes_take_binary_suffixes() {
        let options = parse(&args("--sizes 8,4K,1M,2G --grids 1,sms")).unwrap();
        assert_eq!(options.sizes, [8, 4096, 1 << 20, 2 << 30]);
        assert_eq!(options.grids, [Grid::Blocks(1), Grid::Sms]);
        assert!(parse(&args("--sizes 12")).is_err());
        assert!(parse(&args("--bench nope")).is_err());
        assert!(parse(&args("--threads 100")).is_err());
    }

    #[test]
    fn the_gap_is_zero_or_a_size() {
        assert_eq!(parse(&[]).unwrap().gap, 0);
        assert_eq!(parse(&args("--gap 0")).unwrap().gap, 0);
        assert_eq!(parse(&args("--gap 3M")).unwrap().gap, 3 << 20);
        assert!(parse(&args("--gap 5")).is_err());
        assert!(parse(&args("--gap -1")).is_err());
    }

    #[test]
    fn every_benchmark_is_named_by_its_own_name_and_runs_by_default() {
        let names: Vec<&str> = Bench::ALL.iter().map(|bench| bench.name()).collect();
        let options = parse(&args(&format!("--bench {}", names.join(",")))).unwrap();
        assert_eq!(options.benches, Bench::ALL);
        assert_eq!(parse(&[]).unwrap().benches, Bench::ALL);
        let collectives = parse(&args("--bench reduce_lat,alltoall_lat")).unwrap();
        assert_eq!(collectives.benches, [Bench::ReduceLat, Bench::AlltoallLat]);
    }
}
