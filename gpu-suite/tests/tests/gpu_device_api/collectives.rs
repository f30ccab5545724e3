//! Teams and collectives: team splits, team barriers, reductions, broadcasts, collects and
//! all-to-alls over the world team and over teams split from it (full multi-PE-per-GPU mode).

use super::layout;
use super::support::{TEAMS_IMAGE, check, elapsed_ms, init, launch, require_full_mpg, zeroed};
use nvshmem_host::{Module, Nvshmem, SymmetricBuffer, Team};
use std::time::Instant;

/// Runs the team kernels over `team` (whose members, in team order, are the world PEs `members`)
/// and checks every result; PEs outside the team only take part in the host barriers.
struct TeamRun<'a, 'nv> {
    nvshmem: &'nv Nvshmem,
    module: &'a Module<'nv>,
    counters: SymmetricBuffer<'nv, u64>,
    queries: SymmetricBuffer<'nv, i64>,
    int_source: SymmetricBuffer<'nv, i32>,
    ints: SymmetricBuffer<'nv, i32>,
    real_source: SymmetricBuffer<'nv, f64>,
    reals: SymmetricBuffer<'nv, f64>,
    maxloc: SymmetricBuffer<'nv, [f64; 2]>,
}

pub(crate) const TEAM_KERNELS: [&str; 8] = [
    "team_queries_and_barriers",
    "team_reduce_thread_a",
    "team_reduce_thread_b",
    "team_reduce_warp",
    "team_reduce_block_a",
    "team_reduce_block_b",
    "team_broadcast",
    "team_collect",
];

impl<'a, 'nv> TeamRun<'a, 'nv> {
    fn new(nvshmem: &'nv Nvshmem, module: &'a Module<'nv>) -> Self {
        use layout::collective::*;
        TeamRun {
            nvshmem,
            module,
            counters: zeroed!(nvshmem, u64, VARIANTS),
            queries: zeroed!(nvshmem, i64, QUERIES + VARIANTS),
            int_source: zeroed!(nvshmem, i32, SOURCE),
            ints: zeroed!(nvshmem, i32, INT_REGIONS * SOURCE),
            real_source: zeroed!(nvshmem, f64, SOURCE),
            reals: zeroed!(nvshmem, f64, REAL_REGIONS * SOURCE),
            maxloc: nvshmem.alloc_aligned(2, 16).expect("aligned allocation"),
        }
    }

    fn run(&mut self, team: Option<Team>, members: &[i32]) {
        use layout::collective::*;
        let nvshmem = self.nvshmem;
        let me = nvshmem.my_pe();
        self.counters.copy_from_host(&[0; VARIANTS]).unwrap();
        self.queries
            .copy_from_host(&[0; QUERIES + VARIANTS])
            .unwrap();
        self.ints
            .copy_from_host(&vec![0; INT_REGIONS * SOURCE])
            .unwrap();
        self.reals
            .copy_from_host(&vec![0.0; REAL_REGIONS * SOURCE])
            .unwrap();
        self.maxloc.copy_from_host(&[[0.0; 2]; 2]).unwrap();
        nvshmem.barrier_all();
        let Some(team) = team else {
            let started = Instant::now();
            nvshmem.barrier_all();
            // How long the team's kernels kept this non-member waiting (suite logs show it).
            println!(
                "PE {me}: not in team {members:?}, waited {:.1} ms for its kernels",
                elapsed_ms(started)
            );
            return;
        };
        // The kernels' `SymmetricPtr<MaxLoc>` is the same pointer: `MaxLoc` is two `f64`s,
        // 16-byte aligned (the buffer is allocated so).
        let maxloc = self.maxloc.as_symmetric_ptr();
        for name in TEAM_KERNELS {
            let started = Instant::now();
            launch(
                nvshmem,
                self.module,
                name,
                &[
                    &team,
                    &self.counters.as_symmetric_ptr(),
                    &self.queries.as_symmetric_ptr(),
                    &self.int_source.as_symmetric_ptr(),
                    &self.ints.as_symmetric_ptr(),
                    &self.real_source.as_symmetric_ptr(),
                    &self.reals.as_symmetric_ptr(),
                    &maxloc,
                ],
            );
            // Each kernel's time from launch to completion, for the suite logs.
            println!(
                "PE {me}: {name} on team {members:?}: {:.1} ms",
                elapsed_ms(started)
            );
        }
        nvshmem.barrier_all();

        let size = members.len();
        let rank = members.iter().position(|&pe| pe == me).expect("a member");
        let what = |thing: &str| format!("team {members:?}: {thing}");
        let mut queries = vec![
            rank as i64,
            size as i64,
            members[0] as i64,
            rank as i64,
            -1,
            1,
            nvshmem.n_pes() as i64,
            0,
        ];
        queries.extend([size as i64; VARIANTS]);
        check(
            &what("queries and barrier counters"),
            me,
            &self.queries.to_vec().unwrap(),
            |i| queries[i],
        );

        let ints = self.ints.to_vec().unwrap();
        let region = |r: usize| &ints[r * SOURCE..][..SOURCE];
        let all = |i: usize| members.iter().map(move |&p| int_source(p, i));
        type Fold = fn(i32, i32) -> i32;
        let reductions: [(usize, &str, Fold); 7] = [
            (0, "sum", |a, b| a.wrapping_add(b)),
            (1, "min", i32::min),
            (2, "max", i32::max),
            (3, "and", |a, b| a & b),
            (4, "or", |a, b| a | b),
            (5, "xor", |a, b| a ^ b),
            (6, "prod", |a, b| a.wrapping_mul(b)),
        ];
        for (r, name, fold) in reductions {
            // Region 1 (min) reduces three elements more: its 16-byte pieces and a tail.
            let reduced = if r == 1 { COUNT + 3 } else { COUNT };
            check(&what(&format!("reduce {name}")), me, region(r), |i| {
                if i < reduced {
                    all(i).reduce(fold).unwrap()
                } else {
                    0
                }
            });
        }
        check(&what("reduce sum of SMALL elements"), me, region(17), |i| {
            if i < SMALL { all(i).sum() } else { 0 }
        });
        check(&what("source copy plus one"), me, region(15), |i| {
            if i < COUNT { int_source(me, i) + 1 } else { 0 }
        });
        check(
            &what("reduce sum after the sources changed"),
            me,
            region(16),
            |i| {
                if i < COUNT {
                    all(i).map(|v| v + 1).sum()
                } else {
                    0
                }
            },
        );
        let at_rank = |i: usize| rank * COUNT + i;
        check(&what("reducescatter sum"), me, region(7), |i| {
            if i < COUNT { all(at_rank(i)).sum() } else { 0 }
        });
        check(&what("reducescatter max"), me, region(14), |i| {
            if i < COUNT {
                all(at_rank(i)).max().unwrap()
            } else {
                0
            }
        });
        let root = 1 % size;
        check(&what("broadcast"), me, region(8), |i| {
            if i < COUNT {
                int_source(members[root], i)
            } else {
                0
            }
        });
        check(&what("broadcastmem"), me, region(11), |i| {
            if i < COUNT {
                int_source(members[0], i)
            } else {
                0
            }
        });
        let gathered = |block: usize| {
            move |i: usize| {
                if i < block * size {
                    int_source(members[i / block], i % block)
                } else {
                    0
                }
            }
        };
        check(&what("fcollect"), me, region(9), gathered(COUNT));
        check(&what("fcollectmem"), me, region(12), gathered(MEM_INTS));
        let exchanged = |block: usize| {
            move |i: usize| {
                if i < block * size {
                    int_source(members[i / block], rank * block + i % block)
                } else {
                    0
                }
            }
        };
        check(&what("alltoall"), me, region(10), exchanged(ALLTOALL_INTS));
        check(&what("alltoallmem"), me, region(13), exchanged(MEM_INTS));

        let reals = self.reals.to_vec().unwrap();
        let real_region = |r: usize| &reals[r * SOURCE..][..SOURCE];
        let all_reals = |i: usize| members.iter().map(move |&p| real_source(p, i));
        check(&what("reduce sum f64 (warp)"), me, real_region(0), |i| {
            if i < COUNT { all_reals(i).sum() } else { 0.0 }
        });
        check(
            &what("reducescatter sum f64 (warp)"),
            me,
            real_region(1),
            |i| {
                if i < COUNT {
                    all_reals(at_rank(i)).sum()
                } else {
                    0.0
                }
            },
        );
        check(&what("alltoall f64"), me, real_region(2), |i| {
            if i < ALLTOALL_REALS * size {
                real_source(
                    members[i / ALLTOALL_REALS],
                    rank * ALLTOALL_REALS + i % ALLTOALL_REALS,
                )
            } else {
                0.0
            }
        });
        let [_, [value, location]] = self.maxloc.to_vec().unwrap()[..] else {
            unreachable!("two elements")
        };
        let best = members
            .iter()
            .map(|&p| maxloc_source(p).0)
            .fold(f64::MIN, f64::max);
        assert_eq!(value, best, "PE {me}: {}", what("maxloc value"));
        assert!(
            members
                .iter()
                .any(|&p| maxloc_source(p) == (best, location)),
            "PE {me}: {}: location {location} does not hold the maximum",
            what("maxloc")
        );
    }
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn full_mpg_team_splits_barriers_and_collectives() {
    let nvshmem = init();
    require_full_mpg(&nvshmem);
    let (me, n) = (nvshmem.my_pe(), nvshmem.n_pes());
    let module = nvshmem.load_module(TEAMS_IMAGE).expect("load");
    let mut run = TeamRun::new(&nvshmem, &module);

    let world: Vec<i32> = (0..n).collect();
    run.run(Some(Team::WORLD), &world);

    let evens: Vec<i32> = (0..n).step_by(2).collect();
    let started = Instant::now();
    let even = nvshmem
        .split_strided(Team::WORLD, 0, 2, evens.len() as i32)
        .expect("split_strided");
    println!(
        "PE {me}: split_strided of the evens: {:.1} ms",
        elapsed_ms(started)
    );
    assert_eq!(
        even.is_some(),
        me % 2 == 0,
        "PE {me}: membership of the even team"
    );
    if let Some(even) = &even {
        assert_eq!((even.my_pe(), even.n_pes()), (me / 2, evens.len() as i32));
        assert_eq!(
            nvshmem
                .team_translate_pe(even.team(), even.n_pes() - 1, Team::WORLD)
                .unwrap(),
            evens.last().copied()
        );
    }
    run.run(even.as_ref().map(|team| team.team()), &evens);

    let started = Instant::now();
    let (row, column) = nvshmem.split_2d(Team::WORLD, 2).expect("split_2d");
    println!("PE {me}: split_2d: {:.1} ms", elapsed_ms(started));
    let row = row.expect("every PE is in a row");
    let column = column.expect("every PE is in a column");
    let row_size = (n - me / 2 * 2).min(2);
    assert_eq!(
        (row.my_pe(), row.n_pes()),
        (me % 2, row_size),
        "PE {me}: row team"
    );
    assert_eq!(
        (column.my_pe(), column.n_pes()),
        (me / 2, (n - me % 2 + 1) / 2),
        "PE {me}: column team"
    );
    assert_eq!(
        nvshmem
            .team_translate_pe(row.team(), 0, Team::WORLD)
            .unwrap(),
        Some(me / 2 * 2)
    );
    assert_eq!(
        nvshmem
            .team_translate_pe(Team::WORLD, me, column.team())
            .unwrap(),
        Some(me / 2)
    );
    let started = Instant::now();
    nvshmem.team_barrier(row.team()).expect("host team barrier");
    nvshmem.team_sync(column.team()).expect("host team sync");
    println!(
        "PE {me}: row barrier and column sync: {:.1} ms",
        elapsed_ms(started)
    );
    let error = nvshmem
        .split_strided(Team::WORLD, 0, 1, n + 1)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains(&format!("cannot split a team of {n} PE(s)")),
        "{error}"
    );
    let error = nvshmem
        .team_translate_pe(Team::WORLD, n, Team::WORLD)
        .unwrap_err()
        .to_string();
    assert!(error.contains(&format!("PE {n} does not exist")), "{error}");
    drop(column);
    drop(row);
    drop(even);
    println!("PE {me}/{n}: team splits, team barriers and collectives OK");
    drop(run);
    drop(module);
    nvshmem.finalize().expect("finalize");
}

/// The safe layer's collectives through a `Leader` (`safe_collectives`): reduce, broadcast,
/// fcollect, alltoall and reduce-scatter at block scope, a reduction at thread and warp scope, over
/// the world team; every value exact.
#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn full_mpg_safe_collectives_through_a_leader() {
    use layout::safe_collectives::*;
    let nvshmem = init();
    require_full_mpg(&nvshmem);
    let (me, n) = (nvshmem.my_pe(), nvshmem.n_pes());
    let module = nvshmem.load_module(TEAMS_IMAGE).expect("load");
    let source = zeroed!(nvshmem, i32, REGION);
    let out = zeroed!(nvshmem, i32, REGIONS * REGION);
    nvshmem.barrier_all();
    // A safe kernel takes each slice as its address and its length.
    launch(
        &nvshmem,
        &module,
        "safe_collectives",
        &[
            &source.as_symmetric_ptr(),
            &REGION,
            &out.as_symmetric_ptr(),
            &(REGIONS * REGION),
        ],
    );
    check("safe collectives", me, &out.to_vec().unwrap(), |i| {
        expected(me as usize, n as usize, i)
    });
    println!("PE {me}/{n}: safe collectives OK");
    nvshmem.barrier_all();
}
