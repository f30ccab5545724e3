//! Every PE puts a block of numbers into the next PE's symmetric buffer, all PEs meet in a barrier,
//! and every PE checks what arrived from the previous PE. Exits non-zero on any wrong value.
//!
//! ```text
//! cargo run --release -- [-n PES] [--pes-per-gpu K] [--timeout SECONDS] [--count ELEMENTS]
//! ```
//!
//! Started directly, it starts itself again on `PES` processes through `nvshmem-launch` (default:
//! one per visible GPU). Started by `nvshmemrun`, `mpirun` or `srun`, it is one PE.

use clap::Parser;
use nvshmem_host::{Bootstrap, LaunchShape, Nvshmem};
use nvshmem_launch::cli::JobArgs;
use std::process::ExitCode;

// The project's own kernel crate, in a group of its own so that its name, which `./x new` sets,
// does not move it among the others: the launch descriptor, and the arithmetic the GPU used for
// the host's check.
use nvshmem_starter_kernels::{SendToNext, pattern};

/// The kernels as build.rs compiled them: PTX, and machine code for the GPU in release builds.
const KERNELS: nvshmem_host::ModuleImage = nvshmem_host::module_image!("NVSHMEM_STARTER_KERNELS");

/// How many wrong values are printed, at most, per PE.
const SHOWN_MISMATCHES: usize = 5;

/// Every PE puts a block into the next PE's symmetric buffer and checks what arrived.
#[derive(Parser)]
#[command(version)]
struct Cli {
    /// -n, --pes-per-gpu and --timeout: how to start the PEs when run directly.
    #[command(flatten)]
    job: JobArgs,
    /// Elements each PE sends.
    #[arg(
        long,
        default_value_t = 1 << 20,
        value_parser = clap::value_parser!(u64).range(1..pattern::PE_STRIDE)
    )]
    count: u64,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Started directly (not as a PE): start this program again, once per PE, through the launcher.
    nvshmem_launch::run_pe_or_relaunch(
        "nvshmem-starter",
        &cli.job,
        Bootstrap::detect_pe(),
        |bootstrap| run_pe(bootstrap, cli.count as usize),
    )
}

/// One PE's part: initialise NVSHMEM, allocate, launch, check, finalise.
fn run_pe(bootstrap: Bootstrap, count: usize) -> Result<(), Box<dyn std::error::Error>> {
    let nvshmem = Nvshmem::init_with(bootstrap)?;
    let (me, n_pes) = (nvshmem.my_pe(), nvshmem.n_pes());
    let received = {
        let module = nvshmem.load_module(KERNELS)?;
        let kernel = module.typed_kernel::<SendToNext>()?;
        let source = nvshmem.alloc::<u64>(count)?;
        let received = nvshmem.alloc_zeroed::<u64>(count)?;
        // Every PE launches it with one block, cooperatively as its barrier needs.
        kernel.run_cooperative(LaunchShape::linear(1, 256), (&source, &received))?;
        received.to_vec()?
    };
    nvshmem.finalize()?;

    let from = pattern::previous_pe(me, n_pes);
    let wrong = mismatches(&received, from);
    for (i, expected, found) in wrong.iter().take(SHOWN_MISMATCHES) {
        eprintln!("PE {me}: index {i}: expected {expected} (from PE {from}), found {found}");
    }
    if !wrong.is_empty() {
        return Err(format!(
            "PE {me}: {} of {count} values from PE {from} are wrong",
            wrong.len()
        )
        .into());
    }
    let to = pattern::next_pe(me, n_pes);
    println!(
        "PE {me} of {n_pes}: sent {count} values to PE {to}, received PE {from}'s: all correct"
    );
    Ok(())
}

/// `(index, expected, found)` for every value of `received` that is not what PE `from` sent.
fn mismatches(received: &[u64], from: i32) -> Vec<(usize, u64, u64)> {
    received
        .iter()
        .enumerate()
        .map(|(i, &found)| (i, pattern::value(from, i), found))
        .filter(|(_, expected, found)| expected != found)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn bad_arguments_are_refused() {
        for args in [["--count", "0"], ["--timeout", "-1"], ["-n", "0"]] {
            let parsed = Cli::try_parse_from(std::iter::once("starter").chain(args));
            assert!(parsed.is_err(), "{args:?} was accepted");
        }
    }

    #[test]
    fn only_wrong_values_are_reported() {
        let mut received: Vec<u64> = (0..4).map(|i| pattern::value(2, i)).collect();
        assert_eq!(mismatches(&received, 2), []);
        received[3] = 0;
        assert_eq!(mismatches(&received, 2), [(3, 2_000_000_003, 0)]);
        assert_eq!(mismatches(&received, 1).len(), 4);
    }
}
