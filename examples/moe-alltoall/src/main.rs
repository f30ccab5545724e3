//! Expert-parallel all-to-all (mixture of experts): every PE's tokens go to the PEs of their top-k
//! experts and come back weighted, with the kernels of `examples/moe-alltoall/kernels` (dispatch,
//! then combine, launched back to back: no host step between them).
//!
//! ```text
//! cargo run --release -p moe-alltoall -- [-n PES] [--pes-per-gpu K] [--tokens T,...] [--hidden H]
//!     [--top-k K] [--experts-per-pe E] [--routing random,skewed,empty-pe] [--seed S] [--check]
//!     [--plant lost-token] [--iters N] [--warmup N] [--blocks N] [--threads N]
//! cargo run --release -p moe-alltoall -- --help
//! ```
//!
//! For each token count and routing, `--check` first runs one round on cleared result buffers and
//! compares every token of every PE bit for bit with the CPU reference (`check:` lines; a PE whose
//! tokens differ prints `PE p differs:` and the run fails). Then `--iters` rounds are timed on the
//! GPU's clock and PE 0 prints
//!
//! ```text
//! result: moe-alltoall impl=rust pes 4 tokens 1024 hidden 4096 k 2 experts 16 routing random: MICROSECONDS us per dispatch+combine, RATE GB/s
//! ```
//!
//! The rate counts the bytes of the rows PE 0 moved in a round (its `tokens × k` rows out and the
//! same back, its own experts' rows included) over the round's time. The line ends with the round's
//! memory floor, `floor MICROSECONDS us at copy RATE GB/s`: the bytes a round must move through
//! the memory of PE 0's GPU ([`floor_bytes`]) at the device-to-device copy rate, measured by PE 0
//! in the same run.

mod args;
mod routing;

use args::{Args, Plant};
use clap::Parser;
use clap::ValueEnum;
use moe_alltoall_kernels::{Combine, Control, Dispatch, NO_PAIR, Scratch};
use nvshmem_host::{
    Bootstrap, Error, LaunchShape, Nvshmem, SymmetricBuffer, TypedKernel,
    timing::{self, StreamTimer},
};
use routing::{Shape, problem, reference, wrong_tokens};
use std::process::ExitCode;

const KERNELS: nvshmem_host::ModuleImage = nvshmem_host::module_image!("MOE_ALLTOALL_KERNELS");

/// The most experts in a job: a larger scale would make the results inexact in `f32`.
const MAX_EXPERTS: u32 = 128;

/// The bytes a round must move through the memory of one GPU holding `pes_per_gpu` PEs, each with
/// `tokens` tokens of `hidden` `f32` and `k` choices: per PE, its `tokens × k` rows read and
/// written once by the dispatch, read and written once more on their way back (the expert's
/// transform fused into that pass), read once by the weighted sum, and its `tokens` result rows
/// written.
fn floor_bytes(pes_per_gpu: usize, tokens: usize, hidden: usize, k: usize) -> usize {
    let row = hidden * size_of::<f32>();
    pes_per_gpu * (5 * tokens * k * row + tokens * row)
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let options = Args::parse();
    nvshmem_launch::run_pe_or_relaunch(
        "moe-alltoall",
        &options.job,
        Bootstrap::detect_pe(),
        |bootstrap| run_pe(bootstrap, &options),
    )
}

/// The symmetric buffers of one token count.
struct Buffers<'nv> {
    tokens: SymmetricBuffer<'nv, f32>,
    experts: SymmetricBuffer<'nv, u32>,
    weights: SymmetricBuffer<'nv, f32>,
    received: SymmetricBuffer<'nv, f32>,
    combine_in: SymmetricBuffer<'nv, f32>,
    out: SymmetricBuffer<'nv, f32>,
    control: SymmetricBuffer<'nv, u64>,
    scratch: SymmetricBuffer<'nv, u32>,
}

impl<'nv> Buffers<'nv> {
    fn new(nvshmem: &'nv Nvshmem, tokens: usize, hidden: usize, k: usize) -> Result<Self, Error> {
        let n_pes = nvshmem.n_pes() as usize;
        let pairs = tokens * k;
        let control = Control { n_pes, pairs };
        // Zeroed where a round reads what an earlier one left: signals, cursors, barrier counters.
        Ok(Buffers {
            tokens: nvshmem.alloc(tokens * hidden)?,
            experts: nvshmem.alloc(pairs)?,
            weights: nvshmem.alloc(pairs)?,
            received: nvshmem.alloc(control.receive_rows() * hidden)?,
            combine_in: nvshmem.alloc_zeroed(pairs * hidden)?,
            out: nvshmem.alloc_zeroed(tokens * hidden)?,
            control: nvshmem.alloc_zeroed(control.words())?,
            scratch: nvshmem.alloc_zeroed(Scratch { n_pes, pairs }.words())?,
        })
    }
}

/// The two kernels and how they are launched.
struct Round<'m> {
    dispatch: TypedKernel<'m, Dispatch>,
    combine: TypedKernel<'m, Combine>,
    config: LaunchShape,
    k: u32,
    experts_per_pe: u32,
    lost_pair: u32,
}

impl Round<'_> {
    /// Enqueues round `epoch` (dispatch, then combine) on the handle's stream without waiting, so
    /// that no host step comes between dispatch and combine or counts in the round's time.
    fn enqueue(&self, buffers: &Buffers<'_>, epoch: u32) -> Result<(), Error> {
        let b = buffers;
        let dispatch = (
            &b.tokens,
            &b.experts,
            &b.received,
            &b.control,
            &b.scratch,
            epoch,
            self.k,
            self.experts_per_pe,
            self.lost_pair,
        );
        let combine = (
            &b.received,
            &b.combine_in,
            &b.weights,
            &b.out,
            &b.control,
            &b.scratch,
            epoch,
            self.k,
        );
        self.dispatch.launch_cooperative(self.config, dispatch)?;
        self.combine.launch_cooperative(self.config, combine)
    }
}

fn run_pe(bootstrap: Bootstrap, options: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let nvshmem = Nvshmem::init_with(bootstrap)?;
    let (me, n_pes) = (nvshmem.my_pe(), nvshmem.n_pes());
    let (k, experts_per_pe, hidden) = (
        options.top_k,
        options.experts_per_pe,
        options.hidden as usize,
    );
    let experts = n_pes as u32 * experts_per_pe;
    if experts > MAX_EXPERTS {
        return Err(format!(
            "{n_pes} PEs x {experts_per_pe} experts per PE is {experts} experts, more than \
             {MAX_EXPERTS}: lower --experts-per-pe"
        )
        .into());
    }
    let module = nvshmem.load_module(KERNELS)?;
    let copy_rate = timing::memory_floor(&nvshmem)?;
    let dispatch = module.typed_kernel::<Dispatch>()?;
    let combine = module.typed_kernel::<Combine>()?;
    // One block per multiprocessor, as many as a cooperative launch of both kernels allows.
    let shape = LaunchShape::linear(1, options.threads);
    let (dispatch_max, _, sms) = dispatch.kernel().max_cooperative_blocks(shape)?;
    let (combine_max, _, _) = combine.kernel().max_cooperative_blocks(shape)?;
    let blocks = options
        .blocks
        .unwrap_or_else(|| sms.min(dispatch_max).min(combine_max));
    let mut round = Round {
        dispatch,
        combine,
        config: LaunchShape::linear(blocks, options.threads),
        k,
        experts_per_pe,
        lost_pair: NO_PAIR,
    };
    let mut failures = Vec::new();
    for &tokens in &options.tokens {
        let tokens = tokens as usize;
        let shape = Shape {
            n_pes: n_pes as u32,
            experts_per_pe,
            tokens,
            hidden,
            k,
        };
        let mut buffers = Buffers::new(&nvshmem, tokens, hidden, k as usize)?;
        // The planted defect: PE 0 skips the last choice of its middle token.
        round.lost_pair = match options.plant {
            Some(Plant::LostToken) if me == 0 => (tokens / 2 * k as usize + k as usize - 1) as u32,
            _ => NO_PAIR,
        };
        let mut epoch = 0u32;
        for &routing in &options.routing {
            if let Some(reason) = shape.refuses(routing) {
                return Err(reason.into());
            }
            let problem = problem(shape, routing, options.seed, me as u32);
            buffers.tokens.copy_from_host(&problem.tokens)?;
            buffers.experts.copy_from_host(&problem.experts)?;
            buffers.weights.copy_from_host(&problem.weights)?;
            let what = format!(
                "pes {n_pes} tokens {tokens} hidden {hidden} k {k} experts {experts} routing {}",
                routing
                    .to_possible_value()
                    .expect("no routing is skipped")
                    .get_name()
            );
            if options.check {
                // Cleared, so that a row that never comes back cannot pass as last round's.
                let zeros = vec![0f32; buffers.out.len()];
                buffers.out.copy_from_host(&zeros)?;
                buffers
                    .combine_in
                    .copy_from_host(&vec![0f32; buffers.combine_in.len()])?;
                nvshmem.barrier_all();
                epoch += 1;
                round.enqueue(&buffers, epoch)?;
                nvshmem.synchronize()?;
                let wrong = wrong_tokens(&buffers.out.to_vec()?, &reference(&problem), hidden);
                match wrong.first() {
                    None => println!(
                        "check: {what}: PE {me}: all {tokens} tokens equal the CPU reference"
                    ),
                    Some(&(token, h, got, expected)) => {
                        println!(
                            "check: {what}: PE {me} differs: {} of {tokens} tokens wrong, first \
                             token {token} element {h}: got {got}, expected {expected}",
                            wrong.len()
                        );
                        failures.push(what.clone());
                    }
                }
            }
            if options.iters > 0 {
                nvshmem.barrier_all();
                for _ in 0..options.warmup {
                    epoch += 1;
                    round.enqueue(&buffers, epoch)?;
                }
                let timer = StreamTimer::new(&nvshmem)?;
                timer.start()?;
                for _ in 0..options.iters {
                    epoch += 1;
                    round.enqueue(&buffers, epoch)?;
                }
                timer.stop()?;
                let seconds = timer.seconds()? / f64::from(options.iters);
                nvshmem.synchronize()?;
                if me == 0 {
                    let bytes = 2 * tokens * k as usize * hidden * size_of::<f32>();
                    let floor = floor_bytes(
                        nvshmem_launch::pe_env::pes_per_gpu(),
                        tokens,
                        hidden,
                        k as usize,
                    );
                    println!(
                        "result: moe-alltoall impl=rust {what}: {:.1} us per dispatch+combine, {:.1} GB/s, floor {:.1} us at copy {:.1} GB/s",
                        seconds * 1e6,
                        bytes as f64 / seconds / 1e9,
                        floor as f64 / copy_rate * 1e6,
                        copy_rate / 1e9
                    );
                }
            }
        }
        nvshmem.barrier_all();
        drop(buffers);
    }
    drop(round);
    drop(module);
    nvshmem.finalize()?;
    if !failures.is_empty() {
        return Err(format!(
            "PE {me}: {} run(s) differ from the CPU reference: {}",
            failures.len(),
            failures.join("; ")
        )
        .into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::Routing;
    use nvshmem_launch::cli::{assert_help_and_version, assert_usage_errors};

    fn parse(line: &str) -> Result<Args, clap::Error> {
        Args::try_parse_from(std::iter::once("moe-alltoall").chain(line.split_whitespace()))
    }

    #[test]
    fn the_floor_counts_five_passes_over_the_rows_and_the_results() {
        // The decode shape, 2 PEs on one GPU: 128 tokens x 8 choices of 28,672-byte rows, five
        // passes, plus 128 result rows, per PE.
        assert_eq!(floor_bytes(2, 128, 7168, 8), 2 * (5 * 1024 + 128) * 28_672);
        assert_eq!(floor_bytes(1, 1, 1, 1), 24);
    }

    #[test]
    fn flags_parse_and_bad_values_name_the_flag() {
        let args = parse("-n 4 --tokens 128,4096 --hidden 7168 --routing skewed,empty-pe --check --plant lost-token --iters 0")
            .unwrap();
        assert_eq!(args.tokens, [128, 4096]);
        assert_eq!(args.hidden, 7168);
        assert_eq!(args.routing, [Routing::Skewed, Routing::EmptyPe]);
        assert_eq!(
            (args.check, args.plant, args.iters),
            (true, Some(Plant::LostToken), 0)
        );
        let defaults = parse("").unwrap();
        assert_eq!(defaults.tokens, [128, 256, 512, 1024, 2048, 4096]);
        assert_eq!(
            (defaults.top_k, defaults.routing.as_slice()),
            (2, &[Routing::Random][..])
        );
        assert_usage_errors::<Args>(&[
            ("--tokens 0", "'0' for '--tokens <T,...>'"),
            ("--top-k 9", "'9' for '--top-k <K>'"),
            ("--routing uniform", "'uniform' for '--routing <R,...>'"),
            ("--plant stale", "'stale' for '--plant <DEFECT>'"),
            ("--threads 16", "'16' for '--threads <N>'"),
            ("--blocks 0", "'0' for '--blocks <N>'"),
        ]);
    }

    #[test]
    fn help_and_version_exit_0_and_help_names_every_flag() {
        assert_help_and_version::<Args>();
    }
}
