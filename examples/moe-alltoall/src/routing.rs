//! The problem each PE holds, made from the seed on the CPU (token values, each token's experts and
//! weights), and the CPU reference of a round's result.
//!
//! Every value is a small dyadic fraction (token values in eighths, weights in 256ths, expert
//! scales whole numbers up to 128), so every product and sum is exact in `f32`: the GPU and the CPU
//! agree bit for bit whatever the order or contraction of the arithmetic, and any difference is a
//! row that went missing or to the wrong place.

use crate::args::Routing;
use moe_alltoall_kernels::expert_scale;

/// SplitMix64 (Steele, Lea, Flood 2014): a few lines, the same stream on every platform and
/// release, which a seeded library generator does not promise across its versions.
#[derive(Debug, Clone)]
pub(crate) struct SplitMix64(u64);

impl SplitMix64 {
    pub(crate) fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..bound`.
    pub(crate) fn below(&mut self, bound: u32) -> u32 {
        (self.next_u64() % u64::from(bound)) as u32
    }
}

/// One PE's tokens and their routing.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Problem {
    pub(crate) hidden: usize,
    pub(crate) k: usize,
    /// `tokens × hidden` values.
    pub(crate) tokens: Vec<f32>,
    /// `tokens × k` expert numbers, distinct per token.
    pub(crate) experts: Vec<u32>,
    /// `tokens × k` weights.
    pub(crate) weights: Vec<f32>,
}

/// What the routing needs to know about the job.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    pub(crate) n_pes: u32,
    pub(crate) experts_per_pe: u32,
    pub(crate) tokens: usize,
    pub(crate) hidden: usize,
    pub(crate) k: u32,
}

impl Shape {
    /// Why `routing` cannot give every token `k` distinct experts in this job, if it cannot.
    pub(crate) fn refuses(self, routing: Routing) -> Option<String> {
        let experts = self.n_pes * self.experts_per_pe;
        let eligible = match routing {
            Routing::EmptyPe => experts - self.experts_per_pe,
            Routing::Random | Routing::Skewed => experts,
        };
        (eligible < self.k).then(|| {
            format!(
                "routing {routing:?} leaves {eligible} experts to choose from, fewer than --top-k \
                 {}: raise --experts-per-pe or run on more PEs",
                self.k
            )
        })
    }
}

/// PE `pe`'s problem under `routing`, from `seed` (different for every PE).
pub(crate) fn problem(shape: Shape, routing: Routing, seed: u64, pe: u32) -> Problem {
    let mut rng = SplitMix64::new(seed ^ (u64::from(pe) + 1).wrapping_mul(0x2545_f491_4f6c_dd1d));
    let (hidden, k) = (shape.hidden, shape.k as usize);
    let experts_total = shape.n_pes * shape.experts_per_pe;
    // The empty PE is the last one; PE 0's experts are the skewed routing's favourites.
    let eligible = match routing {
        Routing::EmptyPe => experts_total - shape.experts_per_pe,
        Routing::Random | Routing::Skewed => experts_total,
    };
    let mut experts = Vec::with_capacity(shape.tokens * k);
    for _ in 0..shape.tokens {
        let chosen_from = experts.len();
        for _ in 0..k {
            let mut favourite = routing == Routing::Skewed && rng.below(4) != 0;
            loop {
                let pool = if favourite {
                    shape.experts_per_pe
                } else {
                    eligible
                };
                let expert = rng.below(pool);
                if !experts[chosen_from..].contains(&expert) {
                    experts.push(expert);
                    break;
                }
                // PE 0's experts may all be taken already: draw from all of them.
                favourite = favourite && rng.below(4) != 0;
            }
        }
    }
    let weights = (0..shape.tokens * k)
        .map(|_| (1 + rng.below(255)) as f32 / 256.0)
        .collect();
    let tokens = (0..shape.tokens * hidden)
        .map(|i| {
            ((u64::from(pe) * 7 + (i / hidden) as u64 * 13 + (i % hidden) as u64) % 61 + 1) as f32
                / 8.0
        })
        .collect();
    Problem {
        hidden,
        k,
        tokens,
        experts,
        weights,
    }
}

/// The combine's result on the CPU: per token element, `Σ weight × expert(value)` in choice order.
pub(crate) fn reference(problem: &Problem) -> Vec<f32> {
    let (hidden, k) = (problem.hidden, problem.k);
    let mut out = vec![0.0f32; problem.tokens.len()];
    for (index, result) in out.iter_mut().enumerate() {
        let token = index / hidden;
        let mut sum = 0.0f32;
        for choice in 0..k {
            let pair = token * k + choice;
            sum += problem.weights[pair]
                * (problem.tokens[index] * expert_scale(problem.experts[pair]));
        }
        *result = sum;
    }
    out
}

/// Tokens whose result differs, as `(token, first differing element, got, expected)`.
pub(crate) fn wrong_tokens(
    got: &[f32],
    expected: &[f32],
    hidden: usize,
) -> Vec<(usize, usize, f32, f32)> {
    got.chunks(hidden)
        .zip(expected.chunks(hidden))
        .enumerate()
        .filter_map(|(token, (got, expected))| {
            let h = got
                .iter()
                .zip(expected)
                .position(|(g, e)| g.to_bits() != e.to_bits())?;
            Some((token, h, got[h], expected[h]))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use moe_alltoall_kernels::owner;

    fn shape() -> Shape {
        Shape {
            n_pes: 4,
            experts_per_pe: 4,
            tokens: 512,
            hidden: 8,
            k: 2,
        }
    }

    #[test]
    fn routings_pick_distinct_experts_where_they_should() {
        let shape = shape();
        let destinations = |routing| {
            let p = problem(shape, routing, 48, 1);
            for token in p.experts.chunks(2) {
                assert_ne!(token[0], token[1], "{routing:?} picked one expert twice");
            }
            let mut rows = [0usize; 4];
            for &e in &p.experts {
                rows[owner(e, shape.experts_per_pe)] += 1;
            }
            rows
        };
        let random = destinations(Routing::Random);
        assert!(
            random.iter().all(|&r| r > 150),
            "random is not spread: {random:?}"
        );
        let skewed = destinations(Routing::Skewed);
        assert!(skewed[0] > 600, "skewed does not favour PE 0: {skewed:?}");
        let empty = destinations(Routing::EmptyPe);
        assert_eq!(empty[3], 0, "the last PE receives rows: {empty:?}");
        assert!(shape.refuses(Routing::EmptyPe).is_none());
        let tight = Shape {
            n_pes: 2,
            experts_per_pe: 1,
            k: 2,
            ..shape
        };
        assert!(
            tight
                .refuses(Routing::EmptyPe)
                .unwrap()
                .contains("raise --experts-per-pe")
        );
    }

    #[test]
    fn problems_are_reproducible_and_differ_by_pe() {
        let a = problem(shape(), Routing::Random, 7, 0);
        assert_eq!(a, problem(shape(), Routing::Random, 7, 0));
        assert_ne!(a.experts, problem(shape(), Routing::Random, 7, 1).experts);
    }

    #[test]
    fn the_reference_weights_each_expert_and_a_lost_pair_shows() {
        let p = problem(shape(), Routing::Random, 3, 2);
        let expected = reference(&p);
        let (w, e, x) = (p.weights[0], p.experts[0], p.tokens[0]);
        let (w1, e1) = (p.weights[1], p.experts[1]);
        assert_eq!(
            expected[0],
            w * (x * (e + 1) as f32) + w1 * (x * (e1 + 1) as f32)
        );
        // Token 5 losing its second choice, as the planted defect does.
        let mut lost = expected.clone();
        for h in 0..p.hidden {
            lost[5 * p.hidden + h] -=
                p.weights[11] * (p.tokens[5 * p.hidden + h] * (p.experts[11] + 1) as f32);
        }
        let wrong = wrong_tokens(&lost, &expected, p.hidden);
        assert_eq!(wrong.len(), 1);
        assert_eq!(wrong[0].0, 5);
    }
}
