//! The kernels both Jacobi modules hold: initialisation, the plain stencil with a block push (also
//! the single-GPU reference), the meeting between launches, the norm's closing and summing, and
//! the gather of every PE's values.

#[cfg(target_arch = "nvptx64")]
use crate::problem::initial_cell;
#[cfg(target_arch = "nvptx64")]
use crate::push::{push_edges, pushed_edges};
#[cfg(target_arch = "nvptx64")]
use crate::sweep::{check_vector, checked_sweep, first_column};
use nvshmem_gpu::{SymmetricPtr, SymmetricSlice, kernel};
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::{pe, rma, thread};
#[cfg(target_arch = "nvptx64")]
use nvshmem_halo::device;
use nvshmem_halo::{MeetingCounter, NormTarget, Patch, Tiling};

/// Sets every element of both arrays to its [`initial_cell`], `boundary[row]` being the fixed
/// columns' value of each local row. Any grid shape with open boundaries.
///
/// # Safety
/// `a`, `a_new` hold `patch.len()` elements, `boundary` holds `patch.rows`.
#[kernel]
pub unsafe fn initialize(
    a: SymmetricPtr<f32>,
    a_new: SymmetricPtr<f32>,
    patch: Patch,
    boundary: *const f32,
) {
    let pitch = patch.pitch as usize;
    for i in (thread::global_index_x()..patch.len()).step_by(thread::grid_size_x()) {
        let (row, column) = ((i / pitch) as u32, (i % pitch) as u32);
        // SAFETY: `row < patch.rows`, the length of `boundary`.
        let value = initial_cell(&patch, row, column, unsafe { *boundary.add(row as usize) });
        // SAFETY: `i < patch.len()`.
        unsafe {
            *a.as_ptr().add(i) = value;
            *a_new.as_ptr().add(i) = value;
        }
    }
}

/// One iteration; each block that computed a piece of an edge row puts it into the neighbour with
/// `nvshmemx_float_put_nbi_block`, and the PEs meet at the kernel's end
/// ([`device::meet_at_end`]), so the next launch reads complete halos. Grid: [`Tiling::grid`].
///
/// With no neighbours and [`MeetingCounter::NONE`] (the single-GPU reference) it is the plain
/// stencil.
///
/// A safe kernel: a patch or tiling that does not fit the arrays traps. For right results, `a` and
/// `a_new` are every PE's arrays of one decomposition, laid out as `patch` says; the launch's block
/// size is `tiling.block_x` (a multiple of 32) and its grid `tiling.grid(&patch)`; `norm` is
/// [`NormTarget::NONE`] or one norm's target; `meeting` is `NONE` (the patch has no neighbours) or
/// a counter of this launch, every PE launching the kernel in the same iteration.
#[kernel]
pub fn jacobi_put_block(
    a: SymmetricSlice<f32>,
    a_new: SymmetricSlice<f32>,
    patch: Patch,
    tiling: Tiling,
    norm: NormTarget,
    meeting: MeetingCounter,
) {
    check_vector(&tiling);
    let column_block = thread::block_idx_x();
    let rows = tiling.band(&patch, thread::block_idx_y());
    let first = first_column(&tiling, column_block);
    let residual = checked_sweep(a, a_new, &patch, first, rows.clone());
    push_edges(a_new, &patch, &tiling, column_block, &rows);
    device::add_norm(&norm, residual);
    let (up, down) = pushed_edges(&patch, &rows);
    // SAFETY: the meeting is this kernel's one barrier or collective (the edges and the norm go
    // by puts), and the runner launches its kernels one after another on one stream (or a graph
    // captured from one), so no kernel that meets runs beside this one on the PE.
    unsafe { device::meet_at_end(meeting, up || down) };
}

/// Every PE meets here (`nvshmem_barrier_all` from one thread): the iteration's puts are complete
/// everywhere before the next launch on the stream. The same meeting as the host's on-stream
/// barrier, but a plain kernel launch, which CUDA graph capture accepts where NVSHMEM's on-stream
/// barrier between PEs is refused. A safe kernel: the one thread that holds the PE's
/// [`Leader`](nvshmem_gpu::Leader) meets; a PE that does not launch it hangs the others.
#[kernel]
pub fn barrier_all() {
    if let Some(mut leader) = nvshmem_gpu::Thread::leader() {
        leader.barrier_all();
    }
}

/// Sums the norm of the last stencil launch before it, which no later stencil launch sums
/// ([`nvshmem_halo::host::NormBuffers::closing`]): one block of 32 threads, after the last stencil
/// launch on the same stream. A safe kernel: `norm` is a [`NormTarget`]; for a right norm every
/// launch whose norm it sums has finished, and nothing else uses those slots meanwhile.
#[kernel]
pub fn norm_close(norm: NormTarget) {
    device::add_norm(&norm, 0.0);
}

/// Sums each row of every PE's totals, in PE order, into `norms` (squared): the same sum on every
/// PE. Grid-stride over the `rows` rows; launched once the PEs have met after the run.
///
/// # Safety
/// `totals` holds `rows` rows of `n_pes` values, every PE's puts into them complete; `norms`
/// holds `rows` values.
#[kernel]
pub unsafe fn norm_sum(totals: SymmetricPtr<f64>, norms: *mut f64, rows: u32) {
    let n_pes = pe::n_pes() as usize;
    for j in (thread::global_index_x()..rows as usize).step_by(thread::grid_size_x()) {
        let mut sum = 0.0;
        for pe in 0..n_pes {
            // SAFETY: inside row `j` (the caller's contract).
            sum += unsafe { *totals.as_ptr().add(j * n_pes + pe) };
        }
        // SAFETY: `j < rows`.
        unsafe { *norms.add(j) = sum };
    }
}

/// Copies `count` values of `source` from every PE into `dest`, PE by PE (`nvshmem_double_g`).
///
/// # Safety
/// `source` holds `count` values on every PE; `dest` holds `count × n_pes` values; every PE has
/// written its `source` before a barrier that precedes this launch.
#[kernel]
pub unsafe fn gather(source: SymmetricPtr<f64>, count: u32, dest: *mut f64) {
    let n = count as usize * pe::n_pes() as usize;
    for i in (thread::global_index_x()..n).step_by(thread::grid_size_x()) {
        let (pe, k) = (i / count as usize, i % count as usize);
        // SAFETY: `k < count`, `pe < n_pes`, `i < count × n_pes`.
        unsafe { *dest.add(i) = rma::g(source.add(k), pe as i32) };
    }
}
