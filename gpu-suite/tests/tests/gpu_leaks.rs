//! Leaks over a long run, in one process on one PE: 1000 symmetric allocate/free cycles of mixed
//! sizes, 100 module loads and unloads, and 100 team splits and destroys must give back what they
//! took. It needs a GPU and NVSHMEM, so it is `#[ignore]`d here; `gpu-suite/cases/72-leaks.sh`
//! runs it and prints its figures.
//!
//! Where it looks: the GPU's free memory (module code and data, and any growth of NVSHMEM's
//! symmetric heap) must come back to the figure read after a warm-up round, within CUDA's 2 MiB
//! allocation granularity; a symmetric allocation that is never freed stays inside the heap, where
//! the free figure cannot see it, but 1000 of them overflow the heap and fail the run; and a team
//! never destroyed uses up NVSHMEM's team slots (`NVSHMEM_MAX_TEAMS`, 32 by default), failing a
//! later split.
//!
//! `GPU_LEAKS_PLANT=alloc|module|team` leaks one kind of resource on purpose in every cycle, to show
//! that the test fails then.

use nvshmem_host::{Error, Nvshmem, Team};
use std::time::Instant;

/// The module loaded and unloaded: the device-API test kernels, which use NVSHMEM's device state
/// (so that each load also initialises NVSHMEM's side of the module).
const KERNELS: nvshmem_host::ModuleImage = nvshmem_host::module_image!("DEVICE_API_KERNELS");
const ALLOCATION_CYCLES: usize = 1000;
const MODULE_LOADS: usize = 100;
const TEAM_SPLITS: usize = 100;
/// Bytes of the allocations, taken in turn: from one byte to 16 MiB.
const SIZES: [usize; 6] = [1, 4096, 1 << 16, 1 << 20, 3 << 20, 16 << 20];
/// CUDA's allocation granularity for device memory: drift below it is not a leak.
const GRANULARITY: usize = 2 << 20;
const MIB: f64 = (1 << 20) as f64;

/// Which resource the run leaks on purpose (`GPU_LEAKS_PLANT`), if any.
fn planted(resource: &str) -> bool {
    std::env::var("GPU_LEAKS_PLANT").is_ok_and(|value| value == resource)
}

/// `cycles` allocate/free cycles: two live buffers of different sizes, freed out of order.
fn allocate_and_free(nvshmem: &Nvshmem, cycles: usize) -> Result<(), Error> {
    for i in 0..cycles {
        let first = nvshmem.alloc::<u8>(SIZES[i % SIZES.len()])?;
        let second = nvshmem.alloc_zeroed::<u8>(SIZES[(i * 7 + 3) % SIZES.len()])?;
        if planted("alloc") {
            std::mem::forget(second);
        }
        drop(first);
    }
    Ok(())
}

/// `loads` loads of the device-API kernels' module, each looked into and unloaded.
fn load_and_unload(nvshmem: &Nvshmem, loads: usize) -> Result<(), Error> {
    for _ in 0..loads {
        let module = nvshmem.load_module(KERNELS)?;
        module.kernel("world_sync")?;
        if planted("module") {
            std::mem::forget(module);
        }
    }
    nvshmem.take_deferred_errors()
}

/// `splits` splits of the world team into a team of every PE, each destroyed.
fn split_and_destroy(nvshmem: &Nvshmem, splits: usize) -> Result<(), Error> {
    for _ in 0..splits {
        let team = nvshmem
            .split_strided(Team::WORLD, 0, 1, nvshmem.n_pes())?
            .expect("every PE is a member of a team of every PE");
        if planted("team") {
            std::mem::forget(team);
        } else {
            team.destroy()?;
        }
    }
    Ok(())
}

fn free_bytes(nvshmem: &Nvshmem) -> usize {
    nvshmem.context().mem_get_info().expect("cuMemGetInfo").0
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn allocations_modules_and_teams_give_back_what_they_take() {
    let nvshmem = Nvshmem::init().expect("init");
    // One round of each first: the heap's first growth, the module's JIT and CUDA's own first-use
    // allocations are not leaks.
    allocate_and_free(&nvshmem, SIZES.len()).expect("warm-up allocations");
    load_and_unload(&nvshmem, 1).expect("warm-up module load");
    split_and_destroy(&nvshmem, 1).expect("warm-up team split");
    let start = free_bytes(&nvshmem);
    println!(
        "free device memory at the start: {:.1} MiB",
        start as f64 / MIB
    );

    let started = Instant::now();
    allocate_and_free(&nvshmem, ALLOCATION_CYCLES).expect("allocate/free cycles");
    let after_allocations = free_bytes(&nvshmem);
    load_and_unload(&nvshmem, MODULE_LOADS).expect("module loads");
    let after_modules = free_bytes(&nvshmem);
    split_and_destroy(&nvshmem, TEAM_SPLITS).expect("team splits");
    let end = free_bytes(&nvshmem);
    let change = |bytes: usize| (bytes as f64 - start as f64) / MIB;
    println!(
        "after {ALLOCATION_CYCLES} allocate/free cycles: {:+.1} MiB; after {MODULE_LOADS} \
         module loads: {:+.1} MiB; after {TEAM_SPLITS} team splits: {:+.1} MiB",
        change(after_allocations),
        change(after_modules),
        change(end)
    );
    println!(
        "free device memory at the end: {:.1} MiB ({:.1} s)",
        end as f64 / MIB,
        started.elapsed().as_secs_f64()
    );
    for (what, free) in [
        ("the allocate/free cycles", after_allocations),
        ("the module loads", after_modules),
        ("the team splits", end),
    ] {
        assert!(
            start.abs_diff(free) <= GRANULARITY,
            "free device memory went from {start} to {free} bytes over {what}, more than the \
             {GRANULARITY}-byte granularity: something is not given back"
        );
    }
    nvshmem.finalize().expect("finalize");
}
