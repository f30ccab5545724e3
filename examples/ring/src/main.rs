//! The ring: every PE puts a block of `f32` into the next PE's symmetric buffer, all PEs meet in a
//! barrier, and every PE gets the block back from the next PE and checks every element. Runs both
//! kernels of `examples/ring/kernels` (block-cooperative put/get, and element-wise p/g).
//!
//! ```text
//! cargo run --release -p ring -- [-n PES] [--pes-per-gpu K] [--timeout S] [--count N]
//! cargo run --release -p ring -- --help
//! ```
//!
//! Started directly, it relaunches itself on `PES` processes through `nvshmem-launch` (default: one
//! per visible GPU). Started by `nvshmemrun`, `mpirun` or `srun`, it is one PE. Exits non-zero on any
//! mismatch or error.

use clap::Parser;
use nvshmem_host::{
    Bootstrap, LaunchShape, Module, Nvshmem, SafeKernel, SliceParam, SymmetricBuffer,
};
use ring_args::Args;
use ring_kernels::{RingBlock, RingElementwise};
use std::process::ExitCode;

const KERNELS: nvshmem_host::ModuleImage = nvshmem_host::module_image!("RING_KERNELS");
fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let options = Args::parse();
    nvshmem_launch::run_pe_or_relaunch("ring", &options.job, Bootstrap::detect_pe(), |bootstrap| {
        run_pe(bootstrap, options.count as usize)
    })
}

/// The value PE `pe` stores at index `i`.
fn value(pe: i32, i: usize) -> f32 {
    (pe as usize * 1_000_000 % (1 << 24) + i) as f32
}

fn run_pe(bootstrap: Bootstrap, count: usize) -> Result<(), Box<dyn std::error::Error>> {
    // ANCHOR: ring_host_alloc
    let nvshmem = Nvshmem::init_with(bootstrap)?;
    let (me, n_pes) = (nvshmem.my_pe(), nvshmem.n_pes());
    let module = nvshmem.load_module(KERNELS)?;
    let mut source = nvshmem.alloc::<f32>(count)?;
    let mut received = nvshmem.alloc::<f32>(count)?;
    let mut returned = nvshmem.alloc::<f32>(count)?;
    // ANCHOR_END: ring_host_alloc
    let expected_source: Vec<f32> = (0..count).map(|i| value(me, i)).collect();
    source.copy_from_host(&expected_source)?;
    let previous = (me + n_pes - 1) % n_pes;
    let expected_received: Vec<f32> = (0..count).map(|i| value(previous, i)).collect();
    let mut buffers = Buffers {
        source: &source,
        received: &mut received,
        returned: &mut returned,
    };
    let mut failures = 0;
    for passed in [
        run_and_check::<RingBlock>(
            &nvshmem,
            &module,
            &mut buffers,
            &expected_received,
            &expected_source,
        )?,
        run_and_check::<RingElementwise>(
            &nvshmem,
            &module,
            &mut buffers,
            &expected_received,
            &expected_source,
        )?,
    ] {
        failures += usize::from(!passed);
    }
    drop(returned);
    drop(received);
    drop(source);
    drop(module);
    nvshmem.finalize()?;
    if failures > 0 {
        return Err(format!("{failures} kernel(s) moved wrong data").into());
    }
    Ok(())
}

/// The ring's three symmetric buffers.
struct Buffers<'b, 'nv> {
    source: &'b SymmetricBuffer<'nv, f32>,
    received: &'b mut SymmetricBuffer<'nv, f32>,
    returned: &'b mut SymmetricBuffer<'nv, f32>,
}

/// Runs the ring kernel `K` on every PE and checks what arrived; returns whether it was right.
fn run_and_check<K>(
    nvshmem: &Nvshmem,
    module: &Module<'_>,
    buffers: &mut Buffers<'_, '_>,
    expected_received: &[f32],
    expected_source: &[f32],
) -> Result<bool, Box<dyn std::error::Error>>
where
    K: SafeKernel<Params = (SliceParam<f32>, SliceParam<f32>, SliceParam<f32>)>,
{
    let (me, n_pes, count) = (nvshmem.my_pe(), nvshmem.n_pes(), expected_source.len());
    let previous = (me + n_pes - 1) % n_pes;
    let kernel = module.typed_kernel::<K>()?;
    let zeros = vec![0f32; count];
    buffers.received.copy_from_host(&zeros)?;
    buffers.returned.copy_from_host(&zeros)?;
    // ANCHOR: ring_host_launch
    nvshmem.barrier_all();
    let args = (buffers.source, &*buffers.received, &*buffers.returned);
    kernel.run_cooperative(LaunchShape::linear(1, 256), args)?;
    // ANCHOR_END: ring_host_launch
    let bad_received = mismatches(&buffers.received.to_vec()?, expected_received);
    let bad_returned = mismatches(&buffers.returned.to_vec()?, expected_source);
    let name = K::NAME;
    let passed = bad_received.is_empty() && bad_returned.is_empty();
    if passed {
        println!(
            "{name}: PE {me}/{n_pes}: OK ({count} f32 from PE {previous} received, own block returned)"
        );
    } else {
        println!(
            "{name}: PE {me}/{n_pes}: FAIL: {} wrong in received (first {:?}), {} wrong in returned (first {:?})",
            bad_received.len(),
            bad_received.first(),
            bad_returned.len(),
            bad_returned.first()
        );
    }
    nvshmem.barrier_all();
    Ok(passed)
}

/// `(index, got, expected)` of every differing element.
fn mismatches(got: &[f32], expected: &[f32]) -> Vec<(usize, f32, f32)> {
    got.iter()
        .zip(expected)
        .enumerate()
        .filter(|(_, (g, e))| g != e)
        .map(|(i, (g, e))| (i, *g, *e))
        .collect()
}
