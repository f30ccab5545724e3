//! The symmetric heap a run needs, asked of NVSHMEM as it starts.

use jacobi_args::{Options, Rules};
use nvshmem_halo::host::NormBuffers;
use nvshmem_halo::{NormSchedule, Patch};
use nvshmem_host::Bootstrap;
use nvshmem_host::environment::DEFAULT_SYMMETRIC_SIZE;

/// The symmetric heap one PE of `n_pes` needs, with room to spare: its two arrays, the
/// reference's two with `--check`, the norms' totals of the run, its warm-up, the graphs and the
/// check (each a ring of rows, whatever the run's length), and small buffers.
pub(crate) fn symmetric_heap_bytes(options: &Options, patch: &Patch, n_pes: usize) -> usize {
    let mut bytes = 2 * patch.len() * 4;
    if options.check {
        bytes += 2 * Patch::whole(options.nx - 2, options.ny - 2).len() * 4;
    }
    let schedule = NormSchedule::new(options.iters, options.norm_every).expect("both ≥ 1");
    bytes += 4 * NormBuffers::symmetric_len(schedule, n_pes) * 8;
    bytes + (256 << 20)
}

/// The symmetric heap this run asks for (see [`Nvshmem::init_with_heap`]): what PE 0's patch
/// needs, or NVSHMEM's default where the decomposition fails (which `run_pe` then reports).
///
/// [`Nvshmem::init_with_heap`]: nvshmem_host::Nvshmem::init_with_heap
pub(crate) fn run_heap_bytes(rules: &Rules, options: &Options, bootstrap: &Bootstrap) -> usize {
    let n_pes = match bootstrap {
        Bootstrap::Launcher(identity) => identity.n_pes,
        _ => 1,
    };
    match (rules.decompose)(options, n_pes.max(1)) {
        Ok(decomposition) => symmetric_heap_bytes(options, &decomposition.patch(0), n_pes),
        Err(_) => DEFAULT_SYMMETRIC_SIZE as usize,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use jacobi_args::parse;

    #[test]
    fn the_heap_fits_the_arrays() {
        /// The shared flags alone.
        #[derive(Parser)]
        struct Shared {
            #[command(flatten)]
            options: Options,
        }
        impl From<Shared> for Options {
            fn from(shared: Shared) -> Options {
                shared.options
            }
        }
        let rules = Rules {
            single_launch: &[],
            no_graph: &[],
            graphable: "",
            decompose: |_, _| unreachable!(),
        };
        let o =
            parse::<Shared>(&rules, "--nx 16384 --ny 16384 --check".split_whitespace()).unwrap();
        let whole = Patch::whole(16382, 16382);
        let bytes = symmetric_heap_bytes(&o, &whole, 1);
        assert!(bytes >= 4 * whole.len() * 4, "{bytes}");
        // A long run takes no more symmetric memory than a short one: 10^9 iterations, the norm
        // after each, on 4 PEs, against 10^3.
        let heap = |iters: u32| {
            let line = format!("--nx 4096 --ny 4096 --iters {iters} --norm-every 1");
            let o = parse::<Shared>(&rules, line.split_whitespace()).unwrap();
            symmetric_heap_bytes(&o, &Patch::whole(4094, 1024), 4)
        };
        assert!(
            heap(1_000_000_000) <= heap(1000),
            "{} > {}",
            heap(1_000_000_000),
            heap(1000)
        );
    }
}
