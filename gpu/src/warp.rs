//! Warp-wide arithmetic: the 32 lanes of a warp combining their registers through shuffles.
//!
//! A warp is 32 threads that a multiprocessor issues together. A shuffle (`shfl.sync`) lets each
//! lane read a register of another lane of its warp without going through memory; with a full
//! mask every lane of the warp takes part, so these functions are meant for whole, converged warps. A *butterfly* combines all lanes in five shuffles: in the step with distance `m`, lane
//! `i` adds the value of lane `i ^ m`; after distances 16, 8, 4, 2 and 1 every lane has added each
//! lane's value exactly once. The two lanes of a pair add the same two numbers, so every lane ends
//! with the same bits.
//!
//! The shuffles exist only when compiling for `nvptx64`; the butterfly's schedule is checked on the
//! CPU.
//!
//! ```ignore
//! # fn example(partial: f32) -> f32 {
//! // In a kernel, every lane of the warp with its own `partial`:
//! let total = nvshmem_gpu::warp::sum(partial);
//! # total
//! # }
//! ```

/// The lane distances (`xor` masks) of the butterfly, in order.
#[cfg(any(test, target_arch = "nvptx64", doc))]
const BUTTERFLY: [u32; 5] = [16, 8, 4, 2, 1];

/// The sum of `value` over the 32 lanes of the warp, in every lane (a butterfly of
/// `shfl.sync.bfly`). Every lane of the warp calls it.
///
/// Safe, as [`crate::thread::sync_threads`] is: on `sm_70` and later a `shfl.sync` waits for every
/// lane of its mask that has not exited (a lane that never comes is a hang), and the value read from
/// a lane that has exited or does not exist (a block whose size is not a multiple of 32) is
/// undefined: a wrong sum in a register, never a memory access.
#[cfg(any(target_arch = "nvptx64", doc))]
#[inline]
pub fn sum(mut value: f32) -> f32 {
    for lane_mask in BUTTERFLY {
        value += f32::from_bits(shuffle_xor(value.to_bits(), lane_mask));
    }
    value
}

/// [`sum`] for `f64`: each step shuffles the value's two 32-bit halves. Every lane of the warp
/// calls it; safe for the same reasons.
#[cfg(any(target_arch = "nvptx64", doc))]
#[inline]
pub fn sum_f64(mut value: f64) -> f64 {
    for lane_mask in BUTTERFLY {
        let bits = value.to_bits();
        let high = u64::from(shuffle_xor((bits >> 32) as u32, lane_mask));
        let low = u64::from(shuffle_xor(bits as u32, lane_mask));
        value += f64::from_bits(high << 32 | low);
    }
    value
}

/// The 32 bits `value` of lane `lane ^ lane_mask` (`shfl.sync.bfly.b32` over the whole warp).
#[cfg(any(target_arch = "nvptx64", doc))]
#[inline(always)]
fn shuffle_xor(value: u32, lane_mask: u32) -> u32 {
    let other: u32;
    // SAFETY: a butterfly shuffle among the warp's 32 lanes; it reads registers only, and a lane
    // that does not take part is a hang or a wrong value (see `sum`). Not `pure`: a pure asm may be
    // moved into a branch that only some lanes take (the compiler did sink it into the lane-0
    // branch of a norm reduction), and a shuffle needs every lane of its mask.
    unsafe {
        core::arch::asm!(
            "shfl.sync.bfly.b32 {out}, {value}, {lane_mask}, 31, -1;",
            out = out(reg32) other,
            value = in(reg32) value,
            lane_mask = in(reg32) lane_mask,
            options(nostack, nomem),
        )
    };
    other
}

#[cfg(test)]
mod tests {
    use super::BUTTERFLY;
    use core::ops::Add;

    /// The butterfly of [`super::sum`] run on the CPU: in each step, lane `i` adds the value lane
    /// `i ^ distance` held before the step, as `shfl.sync.bfly` returns it.
    fn butterfly<T: Copy + Add<Output = T>>(mut lanes: [T; 32]) -> [T; 32] {
        for distance in BUTTERFLY {
            let before = lanes;
            for (lane, value) in lanes.iter_mut().enumerate() {
                *value = *value + before[lane ^ distance as usize];
            }
        }
        lanes
    }

    #[test]
    fn every_lane_adds_every_lane_exactly_once() {
        // Lane `i` contributes bit `i`: a lane left out leaves its bit clear, one added twice
        // carries into the next bit.
        let sums = butterfly(core::array::from_fn(|lane| 1u64 << lane));
        assert_eq!(sums, [u64::from(u32::MAX); 32]);
    }

    #[test]
    fn every_lane_ends_with_the_same_float() {
        let lanes: [f32; 32] = core::array::from_fn(|lane| 1.0 / (lane as f32 + 3.0));
        let sums = butterfly(lanes);
        let expected: f32 = lanes.iter().sum();
        assert!(sums.iter().all(|sum| sum.to_bits() == sums[0].to_bits()));
        assert!((sums[0] - expected).abs() <= 1e-6 * expected);
    }
}
