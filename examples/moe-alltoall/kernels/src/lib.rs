//! Kernels of the expert-parallel all-to-all (mixture of experts).
//!
//! Every PE holds `T` tokens of `H` `f32` and, for each token, its top `K` experts and their
//! weights; expert `e` lives on PE `e / experts_per_pe`. A (token, choice) pair is a *pair*,
//! numbered `token × K + choice`. Two kernels make a round, launched one after the other with no
//! host step between them:
//!
//! - `dispatch`: every pair's token row goes to its expert's PE. A thread reserves the row's slot
//!   in that PE's receive region for this source with an atomic add on a local cursor (one cursor
//!   per destination), so no counts travel before the data; the block then puts the row there and
//!   the slot's metadata (pair and expert). Once the grid has put everything, one thread per
//!   destination sets its dispatch signal to `(epoch << 32) | rows`: the count travels in the
//!   signal, after the data.
//! - `combine`: every PE waits for each source's signal, applies each received row's expert (the
//!   stand-in transform: multiply by `expert + 1`) in place, and puts it back into the pair's row of
//!   the home PE's `combine_in`; then sets its combine signal on every PE. Each home PE waits for
//!   all combine signals and sums `Σ_choice weight × row` per token element, in choice order.
//!
//! Signals carry the round's `epoch` (1, 2, …) so that no word needs resetting between rounds; the
//! grid barriers' counters need none either (a complete barrier leaves its counter ready).
//!
//! The buffers' layout ([`Control`], [`Scratch`]) and the packing of metadata and signals are
//! plain functions, shared with the runner and tested on the CPU.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![forbid(unsafe_code)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

use nvshmem_gpu::{SymmetricSlice, kernel};
// What the kernels use exists only on the GPU, like the kernels themselves.
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::{Block, Cmp, Pe, SignalOp, grid::GridBarrier, sync, thread};

/// The layout of the `u64` control buffer: per-source dispatch signals, per-expert-PE combine
/// signals, and each receive slot's metadata. Every PE has the same layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Control {
    /// The number of PEs.
    pub n_pes: usize,
    /// Pairs per PE (tokens × top-k): the receive region of each source has this many slots.
    pub pairs: usize,
}

impl Control {
    /// The buffer's length in `u64` words.
    pub const fn words(self) -> usize {
        2 * self.n_pes + self.n_pes * self.pairs
    }

    /// The word where source `source` signals its dispatch to this PE.
    pub const fn dispatch_signal(self, source: usize) -> usize {
        source
    }

    /// The word where PE `expert_pe` signals that it has returned this PE's rows.
    pub const fn combine_signal(self, expert_pe: usize) -> usize {
        self.n_pes + expert_pe
    }

    /// The metadata word of receive slot `slot` of source `source` (also that slot's row in the
    /// receive buffer, counted from the buffer's start).
    pub const fn meta(self, source: usize, slot: usize) -> usize {
        2 * self.n_pes + self.receive_row(source, slot)
    }

    /// The receive buffer's row of slot `slot` of source `source`.
    pub const fn receive_row(self, source: usize, slot: usize) -> usize {
        source * self.pairs + slot
    }

    /// Rows of the receive buffer: every source's region holds all its pairs, as when all of them
    /// go to one PE (the skewed routing comes close).
    pub const fn receive_rows(self) -> usize {
        self.n_pes * self.pairs
    }
}

/// The layout of the `u32` scratch buffer, this PE's own working memory: the grid barriers'
/// counters, one slot cursor per destination PE, and each pair's reserved slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scratch {
    /// The number of PEs.
    pub n_pes: usize,
    /// Pairs per PE.
    pub pairs: usize,
}

impl Scratch {
    /// The dispatch kernel's grid-barrier counter.
    pub const DISPATCH_BARRIER: usize = 0;
    /// The combine kernel's grid-barrier counter.
    pub const COMBINE_BARRIER: usize = 1;

    /// The buffer's length in `u32` words.
    pub const fn words(self) -> usize {
        2 + self.n_pes + self.pairs
    }

    /// The cursor of destination `dest`: the next free slot of this PE's region there.
    pub const fn cursor(self, dest: usize) -> usize {
        2 + dest
    }

    /// The slot reserved for pair `pair`.
    pub const fn slot(self, pair: usize) -> usize {
        2 + self.n_pes + pair
    }
}

/// The PE that owns expert `expert`.
pub const fn owner(expert: u32, experts_per_pe: u32) -> usize {
    (expert / experts_per_pe) as usize
}

/// A receive slot's metadata: the pair it carries (on its source PE) and the pair's expert.
pub const fn pack_meta(pair: usize, expert: u32) -> u64 {
    ((pair as u64) << 32) | expert as u64
}

/// `(pair, expert)` of a slot's metadata.
pub const fn unpack_meta(meta: u64) -> (usize, u32) {
    ((meta >> 32) as usize, meta as u32)
}

/// A dispatch signal's value: the round, then the number of rows the source sent.
pub const fn dispatch_signal_value(epoch: u32, rows: u32) -> u64 {
    ((epoch as u64) << 32) | rows as u64
}

/// The rows a dispatch signal announces.
pub const fn rows_of(signal: u64) -> usize {
    signal as u32 as usize
}

/// The lowest dispatch-signal value of round `epoch`.
pub const fn dispatch_signal_floor(epoch: u32) -> u64 {
    dispatch_signal_value(epoch, 0)
}

/// The expert's stand-in transform, the same on the GPU and in the CPU reference: a scale by
/// `expert + 1`, exact for the example's values (small dyadic fractions).
pub fn expert_scale(expert: u32) -> f32 {
    (expert + 1) as f32
}

/// Pairs `start..end` of block `block` of `blocks`: contiguous, so that the block that reserves a
/// pair's slot also moves its row, with no grid barrier between.
pub const fn block_pairs(pairs: usize, block: usize, blocks: usize) -> (usize, usize) {
    let per_block = pairs.div_ceil(blocks);
    let start = if block * per_block < pairs {
        block * per_block
    } else {
        pairs
    };
    let end = if start + per_block < pairs {
        start + per_block
    } else {
        pairs
    };
    (start, end)
}

/// Visits `start`, `start + step`, … below `end`: four at a time (`four`, given indices `step`
/// apart) while four remain, then one at a time (`one`). The element loops read through their four
/// indices before they use any value, so that a thread has four loads in flight where it had one
/// (`SymmetricSlice` reads are atomic, which the compiler keeps in program order).
#[inline(always)]
pub fn strided_by_four(
    start: usize,
    end: usize,
    step: usize,
    mut four: impl FnMut([usize; 4]),
    mut one: impl FnMut(usize),
) {
    let mut index = start;
    while index < end && end - index > 3 * step {
        four([index, index + step, index + 2 * step, index + 3 * step]);
        index += 4 * step;
    }
    while index < end {
        one(index);
        index += step;
    }
}

/// A pair index that no PE has, for `lost_pair` when nothing is planted.
pub const NO_PAIR: u32 = u32::MAX;

/// Dispatch: sends every pair's token row to its expert's PE and signals each PE with the round
/// and the count. Launch cooperatively (any grid and block size, the same on every PE and every
/// round), with `epoch` 1 for the first round on zeroed buffers and one more each round.
///
/// `tokens`: `T × H`; `experts`: `T × k` expert numbers below `experts_per_pe × n_pes`;
/// `received`: [`Control::receive_rows`] rows of `H`; `control`, `scratch`: [`Control::words`] and
/// [`Scratch::words`] words. `lost_pair` (a planted defect, [`NO_PAIR`] normally) is a pair whose
/// dispatch is skipped, as a bug in the sender's loop would.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub fn dispatch(
    tokens: SymmetricSlice<f32>,
    experts: SymmetricSlice<u32>,
    received: SymmetricSlice<f32>,
    control: SymmetricSlice<u64>,
    scratch: SymmetricSlice<u32>,
    epoch: u32,
    k: u32,
    experts_per_pe: u32,
    lost_pair: u32,
) {
    let pairs = experts.len();
    let hidden = tokens.len() / (pairs / k as usize);
    let n_pes = Pe::count() as usize;
    let me = Pe::me().index() as usize;
    let (control_layout, scratch_layout) = (Control { n_pes, pairs }, Scratch { n_pes, pairs });
    // The counter is zeroed at allocation and used only by this kernel's barrier, whose complete
    // waits leave it ready for the next launch; the kernel is launched cooperatively.
    let barrier = GridBarrier::on(scratch, Scratch::DISPATCH_BARRIER);
    let (start, end) = block_pairs(
        pairs,
        thread::block_idx_x() as usize,
        thread::blocks_in_grid() as usize,
    );

    // Reserve a slot for each of this block's pairs at its destination, and tell the destination
    // what the slot will carry.
    let threads = thread::block_dim_x() as usize;
    // ANCHOR: reserve
    for pair in (start + thread::rank_in_block() as usize..end).step_by(threads) {
        if pair == lost_pair as usize {
            continue;
        }
        let expert = experts.read(pair);
        let dest = owner(expert, experts_per_pe);
        // Relaxed, as the twin's `atomicAdd`: the block barrier orders the slot for the put loop,
        // the grid barrier the count for the signal; an acquire-release here would wait for this
        // thread's earlier stores and drop the L1 cache on every pair.
        let slot = scratch.local_fetch_add(scratch_layout.cursor(dest), 1);
        scratch.write(scratch_layout.slot(pair), slot);
        let dest_pe = Pe::new(dest as i32).expect("the routing names an expert of a PE of the job");
        control.p(
            control_layout.meta(me, slot as usize),
            pack_meta(pair, expert),
            dest_pe,
        );
    }
    // ANCHOR_END: reserve
    thread::sync_threads();

    // Move the rows, one per block-wide put.
    for pair in start..end {
        if pair == lost_pair as usize {
            continue;
        }
        // Both reads before anything that depends on either, so that they are in flight together
        // (read after the checks on the expert, the slot cost a second memory round trip per row).
        let expert = experts.read(pair);
        let slot = scratch.read(scratch_layout.slot(pair)) as usize;
        let dest = owner(expert, experts_per_pe);
        let dest_pe = Pe::new(dest as i32).expect("the routing names an expert of a PE of the job");
        let row = control_layout.receive_row(me, slot);
        let token = pair / k as usize;
        Block.put(
            received.range(row * hidden..(row + 1) * hidden),
            tokens.range(token * hidden..(token + 1) * hidden),
            dest_pe,
        );
    }

    // ANCHOR: dispatch_signal
    // Every row is in place before any destination hears of it: each thread completes its puts,
    // then the grid meets, then one thread per destination signals the count.
    sync::quiet();
    // Every thread of every block reaches it once per round (no early return above).
    barrier.wait();
    if thread::block_idx_x() == 0 {
        let dest = thread::rank_in_block() as usize;
        if dest < n_pes {
            let cursor = scratch_layout.cursor(dest);
            let rows = scratch.read(cursor);
            scratch.write(cursor, 0);
            let dest_pe = Pe::new(dest as i32).expect("dest < n_pes");
            control.signal(control_layout.dispatch_signal(me)).op(
                dispatch_signal_value(epoch, rows),
                SignalOp::Set,
                dest_pe,
            );
        }
    }
    // ANCHOR_END: dispatch_signal
}

/// Combine: applies each received row's expert and returns it to its home PE, then, at home, sums
/// every token's expert outputs weighted by the routing weights, in choice order. Launch as
/// `dispatch`, after it, with the same `epoch`.
///
/// `received`, `control`, `scratch`: as for `dispatch`; `combine_in`: `T × k` rows of `H`, the
/// returned expert outputs by pair; `weights`: `T × k`; `out`: `T × H`, the result.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub fn combine(
    received: SymmetricSlice<f32>,
    combine_in: SymmetricSlice<f32>,
    weights: SymmetricSlice<f32>,
    out: SymmetricSlice<f32>,
    control: SymmetricSlice<u64>,
    scratch: SymmetricSlice<u32>,
    epoch: u32,
    k: u32,
) {
    let pairs = weights.len();
    let hidden = out.len() / (pairs / k as usize);
    let n_pes = Pe::count() as usize;
    let me = Pe::me().index() as usize;
    let layout = Control { n_pes, pairs };
    let barrier = GridBarrier::on(scratch, Scratch::COMBINE_BARRIER);
    let (block, blocks) = (
        thread::block_idx_x() as usize,
        thread::blocks_in_grid() as usize,
    );
    let (rank, threads) = (
        thread::rank_in_block() as usize,
        thread::block_dim_x() as usize,
    );

    // Expert side: each source's rows, once its signal says they are all here.
    // ANCHOR: combine_wait
    for source in 0..n_pes {
        let signal = control.signal(layout.dispatch_signal(source));
        if rank == 0 {
            signal.wait_until(Cmp::Ge, dispatch_signal_floor(epoch));
        }
        thread::sync_threads();
        let rows = rows_of(signal.fetch());
        // ANCHOR_END: combine_wait
        let source_pe = Pe::new(source as i32).expect("source < n_pes");
        for slot in (block..rows).step_by(blocks) {
            let (pair, expert) = unpack_meta(control.read(layout.meta(source, slot)));
            let row = received.range(
                layout.receive_row(source, slot) * hidden
                    ..(layout.receive_row(source, slot) + 1) * hidden,
            );
            let scale = expert_scale(expert);
            strided_by_four(
                rank,
                hidden,
                threads,
                |at| {
                    let values = at.map(|h| row.read(h));
                    for j in 0..4 {
                        row.write(at[j], values[j] * scale);
                    }
                },
                |h| row.write(h, row.read(h) * scale),
            );
            thread::sync_threads();
            Block.put(
                combine_in.range(pair * hidden..(pair + 1) * hidden),
                row,
                source_pe,
            );
        }
    }
    sync::quiet();
    // Every thread of every block reaches it once per round.
    barrier.wait();
    if block == 0 && rank < n_pes {
        let home = Pe::new(rank as i32).expect("rank < n_pes");
        control
            .signal(layout.combine_signal(me))
            .op(u64::from(epoch), SignalOp::Set, home);
    }

    // Home side: once every expert PE has returned its rows, the weighted sum per element.
    if rank == 0 {
        for expert_pe in 0..n_pes {
            control
                .signal(layout.combine_signal(expert_pe))
                .wait_until(Cmp::Ge, u64::from(epoch));
        }
    }
    thread::sync_threads();
    let k = k as usize;
    // Element `index` of `out` for `choice`: its pair and its place in `combine_in`.
    let input = |index: usize, choice: usize| {
        let pair = index / hidden * k + choice;
        (pair, pair * hidden + index % hidden)
    };
    strided_by_four(
        thread::global_index_x(),
        out.len(),
        thread::grid_size_x(),
        |at| {
            // The weights and inputs of one choice for the four elements.
            let load = |choice: usize| {
                let inputs = at.map(|index| input(index, choice));
                let weight = inputs.map(|(pair, _)| weights.read(pair));
                (weight, inputs.map(|(_, element)| combine_in.read(element)))
            };
            let mut sums = [0.0f32; 4];
            let mut add = |(weight, value): ([f32; 4], [f32; 4])| {
                for j in 0..4 {
                    sums[j] += weight[j] * value[j];
                }
            };
            // Two choices' loads before either is added: what nvcc does with the twin's plain
            // loads by itself, and the compiler may not do with volatile ones.
            let mut choice = 0;
            while choice + 1 < k {
                let (first, second) = (load(choice), load(choice + 1));
                add(first);
                add(second);
                choice += 2;
            }
            if choice < k {
                add(load(choice));
            }
            // Indexed rather than zipped: a zip of arrays stays a loop, and its arrays go to local
            // memory.
            for j in 0..4 {
                out.write(at[j], sums[j]);
            }
        },
        |index| {
            let mut sum = 0.0f32;
            for choice in 0..k {
                let (pair, element) = input(index, choice);
                sum += weights.read(pair) * combine_in.read(element);
            }
            out.write(index, sum);
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_do_not_overlap_and_fill_their_buffers() {
        let control = Control {
            n_pes: 4,
            pairs: 10,
        };
        assert_eq!(control.dispatch_signal(3) + 1, control.combine_signal(0));
        assert_eq!(control.combine_signal(3) + 1, control.meta(0, 0));
        assert_eq!(control.meta(3, 9) + 1, control.words());
        assert_eq!(control.receive_row(3, 9) + 1, control.receive_rows());
        let scratch = Scratch {
            n_pes: 4,
            pairs: 10,
        };
        assert_eq!(Scratch::COMBINE_BARRIER + 1, scratch.cursor(0));
        assert_eq!(scratch.cursor(3) + 1, scratch.slot(0));
        assert_eq!(scratch.slot(9) + 1, scratch.words());
    }

    #[test]
    fn metadata_and_signals_round_trip() {
        assert_eq!(unpack_meta(pack_meta(8191, 127)), (8191, 127));
        let value = dispatch_signal_value(7, 8192);
        assert_eq!(rows_of(value), 8192);
        assert!(value >= dispatch_signal_floor(7) && value < dispatch_signal_floor(8));
        // A round with no rows still raises the signal above the previous round's.
        assert!(dispatch_signal_value(8, 0) > dispatch_signal_value(7, u32::MAX));
    }

    #[test]
    fn blocks_cover_every_pair_once() {
        for (pairs, blocks) in [(10, 3), (3, 8), (8192, 132), (0, 4)] {
            let mut next = 0;
            for block in 0..blocks {
                let (start, end) = block_pairs(pairs, block, blocks);
                assert!(start <= end);
                if start < end {
                    assert_eq!(start, next);
                    next = end;
                }
            }
            assert_eq!(next, pairs);
        }
        assert_eq!(owner(7, 4), 1);
        assert_eq!(expert_scale(3), 4.0);
    }

    #[test]
    fn strided_by_four_visits_every_index_once_in_order() {
        for (start, end, step) in [
            (0, 0, 1),
            (3, 2, 5),
            (0, 3, 1),
            (2, 14, 4),
            (0, 16, 1),
            (1, 17, 4),
            (5, 4096, 256),
            (7, 100, 33),
        ] {
            let seen = std::cell::RefCell::new(Vec::new());
            let mut fours = 0;
            strided_by_four(
                start,
                end,
                step,
                |at| {
                    fours += 1;
                    assert_eq!(
                        at,
                        [at[0], at[0] + step, at[0] + 2 * step, at[0] + 3 * step]
                    );
                    seen.borrow_mut().extend(at);
                },
                |index| seen.borrow_mut().push(index),
            );
            let expected: Vec<usize> = (start..end).step_by(step).collect();
            assert_eq!(seen.into_inner(), expected, "{start}..{end} by {step}");
            assert_eq!(fours, expected.len() / 4, "{start}..{end} by {step}");
        }
    }
}
