//! The steps of the interop example, shared by its program (`src/main.rs`) and its GPU tests
//! (`tests/gpu_interop.rs`). Each is collective: every PE calls it, in the same order.

use cudarc::driver::{CudaStream, PushKernelArg};
use nvshmem_host::{LaunchShape, Module, Nvshmem, StreamOperations, Team};
use std::error::Error;
use std::sync::Arc;

/// The kernels (`examples/interop/kernels`).
pub const KERNELS: nvshmem_host::ModuleImage = nvshmem_host::module_image!("INTEROP_KERNELS");

/// Threads per block of both kernels.
const THREADS: u32 = 256;

/// The PEs this PE sends to and receives from: the next and previous around the ring.
pub fn neighbours(nvshmem: &Nvshmem) -> (i32, i32) {
    let (me, n) = (nvshmem.my_pe(), nvshmem.n_pes());
    ((me + 1) % n, (me + n - 1) % n)
}

/// PE `pe`'s values for the registered-memory put (the kernels' pattern is another one).
pub fn host_values(pe: i32, count: usize) -> Vec<u32> {
    (0..count as u32)
        .map(|i| pe as u32 * 1_000_003 + i * 3)
        .collect()
}

/// The NVSHMEM kernel `put_pattern`, launched on `stream` (the caller's own stream), puts this PE's
/// pattern into the next PE's symmetric buffer; a barrier enqueued on `stream` completes every
/// PE's puts; then the plain kernel `compare_pattern`, launched through cudarc's own launch
/// builder on the symmetric buffer, compares what the previous PE put. Returns the number of
/// elements that differ.
pub fn cudarc_launch_reads_a_put(
    nvshmem: &Nvshmem,
    module: &Module<'_>,
    stream: &Arc<CudaStream>,
    count: usize,
) -> Result<usize, Box<dyn Error>> {
    let (next, previous) = neighbours(nvshmem);
    let put = module.kernel("put_pattern")?;
    let compare = module.kernel("compare_pattern")?;
    let on = nvshmem.on(stream)?;
    let received = nvshmem.alloc_zeroed::<u32>(count)?;
    let blocks = count.div_ceil(THREADS as usize).min(1024) as u32;
    // SAFETY: put_pattern(dest, count, target) puts `count` elements into `received`, which holds
    // that many on every PE; `next` is a PE; the kernel waits for no other PE.
    unsafe {
        on.launch(
            &put,
            LaunchShape::linear(blocks, THREADS),
            &[&received.as_symmetric_ptr(), &count, &next],
        )?
    };
    on.barrier_all_on_stream();
    let mut differences = stream.alloc_zeros::<u32>(count)?;
    let mut launch = stream.launch_builder(compare.cuda_function());
    launch
        .arg(&received)
        .arg(&count)
        .arg(&previous)
        .arg(&mut differences);
    let config = cudarc::driver::LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: compare_pattern(data, count, from, differences) reads `count` elements of `received`
    // and writes `count` of `differences`, which both hold.
    unsafe { launch.launch(config) }?;
    let differences = stream.clone_dtoh(&differences)?;
    nvshmem.barrier_all();
    Ok(differences.iter().filter(|&&d| d != 0).count())
}

/// A cudarc allocation, registered with NVSHMEM, is the source of a put on `stream` into the next
/// PE's symmetric buffer; after a barrier on `stream`, cudarc copies what the previous PE put back
/// to the host (the symmetric buffer as cudarc's `DevicePtr`). Returns the number of elements that
/// differ from the previous PE's values.
pub fn registered_allocation_is_put(
    nvshmem: &Nvshmem,
    stream: &Arc<CudaStream>,
    count: usize,
) -> Result<usize, Box<dyn Error>> {
    let (next, previous) = neighbours(nvshmem);
    let source = stream.clone_htod(&host_values(nvshmem.my_pe(), count))?;
    let received = nvshmem.alloc_zeroed::<u32>(count)?;
    stream.synchronize()?;
    let registered = nvshmem.register(&source)?;
    let on = nvshmem.on(stream)?;
    on.put_on_stream(&received, &registered, count, next)?;
    on.barrier_all_on_stream();
    let got = stream.clone_dtoh(&received)?;
    drop(registered);
    nvshmem.take_deferred_errors()?;
    nvshmem.barrier_all();
    let expected = host_values(previous, count);
    Ok(got.iter().zip(&expected).filter(|(g, e)| g != e).count())
}

/// Which PEs' copies of a symmetric buffer this PE reaches with loads and stores, and whether the
/// world team has a multicast address.
pub fn peer_pointers(nvshmem: &Nvshmem) -> Result<(Vec<bool>, bool), Box<dyn Error>> {
    let buffer = nvshmem.alloc_zeroed::<u32>(1)?;
    let peers = (0..nvshmem.n_pes())
        .map(|pe| Ok(buffer.peer_ptr(pe)?.is_some()))
        .collect::<Result<Vec<bool>, nvshmem_host::Error>>()?;
    let multicast = buffer.multicast_ptr(Team::WORLD)?.is_some();
    Ok((peers, multicast))
}
