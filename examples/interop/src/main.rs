//! nvshmem-host beside cudarc, at any number of PEs (2 or more to cross PEs):
//! - an NVSHMEM kernel launched on the program's own cudarc stream puts a pattern into the next
//!   PE's symmetric buffer, a barrier is enqueued on that stream, and a plain kernel launched
//!   through cudarc's launch builder checks the buffer on the receiving PE;
//! - a cudarc allocation registered with NVSHMEM is the source of a put;
//! - which PEs' buffers this PE reaches by load/store (peer pointers), and whether the world team
//!   has a multicast address.
//!
//! ```text
//! cargo run --release -p interop -- [-n PES] [--pes-per-gpu K] [--timeout S] [--count N]
//! interop --rendezvous FILE --rank R -n PES    # started once per PE by you, e.g. by a script
//! ```
//!
//! Started directly, it relaunches itself on `PES` processes through `nvshmem-launch`. Started by
//! `nvshmemrun`, `mpirun` or `srun`, it is one PE. With `--rendezvous FILE`, the PEs meet through a
//! unique id instead: rank 0 creates it and writes it to FILE (use a fresh path per job), the
//! others wait for it (60 s at most); each uses GPU `rank / NVSHMEMRS_PES_PER_GPU`. Exits non-zero
//! on any mismatch or error.

use clap::Parser;
use interop::{KERNELS, cudarc_launch_reads_a_put, peer_pointers, registered_allocation_is_put};
use interop_args::Options;
use nvshmem_host::{Bootstrap, Nvshmem, UNIQUE_ID_TIMEOUT, UniqueId};
use nvshmem_pe_env::rendezvous;
use std::error::Error;
use std::num::NonZeroUsize;
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let options = Options::parse();
    let count = options.count as usize;
    let started_as_pe = match (&options.rendezvous, options.rank, options.job.n_pes) {
        (Some(file), Some(rank), Some(n_pes)) => Ok(Some(Start::Rendezvous(file, rank, n_pes))),
        _ => Bootstrap::detect_pe().map(|found| found.map(Start::Bootstrap)),
    };
    nvshmem_launch::run_pe_or_relaunch("interop", &options.job, started_as_pe, |start| {
        let nvshmem = match start {
            Start::Rendezvous(file, rank, n_pes) => init_through_file(file, rank, n_pes)?,
            Start::Bootstrap(bootstrap) => Nvshmem::init_with(bootstrap)?,
        };
        run_pe(nvshmem, count)
    })
}

/// How this PE meets the others.
enum Start<'a> {
    /// Through a unique id in a file (`--rendezvous FILE --rank R -n PES`).
    Rendezvous(&'a Path, u32, NonZeroUsize),
    /// As whatever started this process says.
    Bootstrap(Bootstrap),
}

/// Rank 0 creates the unique id and publishes it in `file`; the others wait for it there.
fn init_through_file(
    file: &Path,
    rank: u32,
    n_pes: NonZeroUsize,
) -> Result<Nvshmem, Box<dyn Error>> {
    let id = if rank == 0 {
        let id = UniqueId::new()?;
        rendezvous::publish_unique_id_at(file, id.as_bytes())?;
        id
    } else {
        let bytes = rendezvous::wait_for_unique_id_at(file, UniqueId::LEN, UNIQUE_ID_TIMEOUT)?;
        UniqueId::from_bytes(&bytes)?
    };
    let (rank, n_pes) = (i32::try_from(rank)?, i32::try_from(n_pes.get())?);
    Ok(Nvshmem::init_with_unique_id(&id, rank, n_pes)?)
}

fn run_pe(nvshmem: Nvshmem, count: usize) -> Result<(), Box<dyn Error>> {
    let (me, n) = (nvshmem.my_pe(), nvshmem.n_pes());
    let previous = (me + n - 1) % n;
    let module = nvshmem.load_module(KERNELS)?;
    let stream = nvshmem.context().new_stream()?;
    let mut failures = 0;
    let wrong = cudarc_launch_reads_a_put(&nvshmem, &module, &stream, count)?;
    failures += usize::from(wrong > 0);
    println!(
        "PE {me}/{n}: cudarc launch on symmetric memory: {} ({count} u32 put by PE {previous}, {wrong} wrong)",
        if wrong == 0 { "OK" } else { "FAIL" }
    );
    let wrong = registered_allocation_is_put(&nvshmem, &stream, count)?;
    failures += usize::from(wrong > 0);
    println!(
        "PE {me}/{n}: registered cudarc allocation as put source: {} ({wrong} wrong)",
        if wrong == 0 { "OK" } else { "FAIL" }
    );
    let (peers, multicast) = peer_pointers(&nvshmem)?;
    let reachable: Vec<String> = peers
        .iter()
        .enumerate()
        .map(|(pe, some)| format!("PE {pe}: {}", if *some { "Some" } else { "None" }))
        .collect();
    println!(
        "PE {me}/{n}: peer_ptr {}; world multicast: {}",
        reachable.join(", "),
        if multicast { "Some" } else { "None" }
    );
    drop(stream);
    drop(module);
    nvshmem.finalize()?;
    if failures > 0 {
        return Err(format!("{failures} check(s) found wrong data").into());
    }
    Ok(())
}
