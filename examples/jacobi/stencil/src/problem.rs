//! The initial state of the Jacobi problem: [`initial_interior`], shared by the kernels'
//! `initialize` and the runners' CPU reference (`bench/reference/stencil.cuh` computes the same
//! values), and [`initial_cell`], each local cell of a PE's patch.
//!
//! NVIDIA's problem starts from an all-zero interior; values then spread from the fixed columns one
//! column per iteration, so the halos between PEs carry zeros for many iterations and a dropped,
//! stale or misplaced halo goes unseen. Here every interior cell starts non-zero, and cells of one
//! row (or one column) all start different, so every halo carries distinct non-zero data from the
//! first iteration on.

use nvshmem_halo::Patch;

/// Bits of the values: integers below `2^MANTISSA_BITS` convert to `f32` exactly.
const MANTISSA_BITS: u32 = 23;
const MASK: u32 = (1 << MANTISSA_BITS) - 1;

/// The initial value of interior cell `(x, y)` (counted from the first interior cell): one of the
/// `2^23` values `k / 2^23`, `k` in `1 ..= 2^23`, so never zero, and computed exactly alike on any
/// processor (integer arithmetic, one exact conversion and one exact scaling).
///
/// Along a row (fixed `y`) the values differ for up to `2^23` columns, and likewise along a
/// column: `x ↦ (x·A + y·B) mod 2^23` is a bijection (`A` odd), and so is each mixing step after it
/// (an xor with a right shift, a multiplication by an odd number, modulo `2^23`).
#[inline(always)]
pub fn initial_interior(x: u32, y: u32) -> f32 {
    let mut h = x
        .wrapping_mul(0x9E37_79B1)
        .wrapping_add(y.wrapping_mul(0x85EB_CA77))
        & MASK;
    h ^= h >> 12;
    h = h.wrapping_mul(0x2C1B_3C6D) & MASK;
    h ^= h >> 11;
    (h + 1) as f32 * (1.0 / (1u32 << MANTISSA_BITS) as f32)
}

/// The initial value of local `(row, column)` of `patch` (open boundaries): `boundary`, the row's
/// value of the fixed columns, in a left or right halo column without a neighbour; the global
/// cell's [`initial_interior`] in an owned cell and in a halo cell with a neighbour there (that
/// neighbour's own initial cell, so the first iteration reads the right halos before any exchange);
/// 0 elsewhere (the fixed top and bottom rows, the padding).
pub fn initial_cell(patch: &Patch, row: u32, column: u32, boundary: f32) -> f32 {
    let fixed = (column == 0 && patch.left < 0) || (column == patch.nx + 1 && patch.right < 0);
    // Local index `i` of a side of `n` owned cells with neighbours `before` and `after` (or -1).
    let inside = |i: u32, n: u32, before: i32, after: i32| {
        (1..=n).contains(&i) || (i == 0 && before >= 0) || (i == n + 1 && after >= 0)
    };
    if fixed {
        boundary
    } else if inside(row, patch.ny, patch.up, patch.down)
        && inside(column, patch.nx, patch.left, patch.right)
    {
        // A halo at index 0 has a neighbour before it, so `x0` (or `y0`) is at least 1.
        initial_interior(patch.x0 + column - 1, patch.y0 + row - 1)
    } else {
        0.0
    }
}
