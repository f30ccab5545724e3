//! The CPU reference run of the whole problem.

use crate::initial::boundary_values;
use jacobi_stencil::problem;
use nvshmem_halo::Patch;

/// The CPU reference: the whole `nx × ny` grid after `iters` iterations, and the last iteration's
/// residual norm. The update sums in the kernels' order and Rust contracts no multiplication and
/// addition into one, so the cells agree with the kernels' bit for bit.
pub(crate) fn cpu_jacobi(nx: usize, ny: usize, iters: u32) -> (Vec<f32>, f64) {
    let boundary = boundary_values(&Patch::whole(nx - 2, ny - 2), ny);
    let mut a = vec![0.0f32; nx * ny];
    for y in 0..ny {
        a[y * nx] = boundary[y];
        a[y * nx + nx - 1] = boundary[y];
    }
    for y in 1..ny - 1 {
        for x in 1..nx - 1 {
            a[y * nx + x] = problem::initial_interior(x as u32 - 1, y as u32 - 1);
        }
    }
    let mut a_new = a.clone();
    let mut norm = 0.0f64;
    for _ in 0..iters {
        norm = 0.0;
        for y in 1..ny - 1 {
            for x in 1..nx - 1 {
                let i = y * nx + x;
                // The kernels' `update`: 0.25 (east + west + south + north).
                let new = 0.25 * (a[i + 1] + a[i - 1] + a[i + nx] + a[i - nx]);
                a_new[i] = new;
                let change = f64::from(new - a[i]);
                norm += change * change;
            }
        }
        std::mem::swap(&mut a, &mut a_new);
    }
    (a, norm.sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_reference_matches_a_hand_computed_step() {
        // 5 × 4: interior 3 × 2 starting at v(x, y); the left and right columns hold b1 and b2 in
        // rows 1 and 2, the top and bottom rows 0. One step: 0.25 (east + west + south + north).
        let (cells, norm) = cpu_jacobi(5, 4, 1);
        let b1 = (2.0 * std::f64::consts::PI / 3.0).sin() as f32;
        let b2 = (4.0 * std::f64::consts::PI / 3.0).sin() as f32;
        let v = problem::initial_interior;
        let expected = [
            0.25 * (v(1, 0) + b1 + v(0, 1) + 0.0),
            0.25 * (v(2, 0) + v(0, 0) + v(1, 1) + 0.0),
            0.25 * (b1 + v(1, 0) + v(2, 1) + 0.0),
            0.25 * (v(1, 1) + b2 + 0.0 + v(0, 0)),
            0.25 * (v(2, 1) + v(0, 1) + 0.0 + v(1, 0)),
            0.25 * (b2 + v(1, 1) + 0.0 + v(2, 0)),
        ];
        let got = [&cells[6..9], &cells[11..14]].concat();
        assert_eq!(got, expected);
        let before = [v(0, 0), v(1, 0), v(2, 0), v(0, 1), v(1, 1), v(2, 1)];
        let squares: f64 = (0..6)
            .map(|i| f64::from(expected[i] - before[i]).powi(2))
            .sum();
        assert!((norm - squares.sqrt()).abs() < 1e-12);
    }
}
