//! The 3-D decomposition's arithmetic on the CPU: directions, process grids, boxes, regions and patches.

use super::*;

const OPEN: [Boundary; 3] = [Boundary::Open; 3];
const PERIODIC: [Boundary; 3] = [Boundary::Periodic; 3];

fn all_directions() -> impl Iterator<Item = Direction3d> {
    (0..Direction3d::COUNT).map(Direction3d::from_index)
}

#[test]
fn directions_are_numbered_faces_edges_corners() {
    let mut seen = std::collections::HashSet::new();
    for (i, d) in all_directions().enumerate() {
        assert_eq!(d.index(), i);
        assert!(seen.insert(d.step()));
        let moves = d.step().iter().filter(|&&s| s != 0).count();
        let expected = if i < 6 {
            1
        } else if i < 18 {
            2
        } else {
            3
        };
        assert_eq!(moves, expected, "direction {i}");
        assert_eq!(d.opposite().opposite(), d);
        assert_ne!(d.opposite(), d);
        assert_eq!(d.is_face(), i < 6);
    }
    assert_eq!(Direction3d::new(-1, 0, 0).index(), 0);
    assert_eq!(Direction3d::new(1, 0, 0).index(), 1);
    assert_eq!(Direction3d::new(0, 0, 1).index(), 5);
}

#[test]
fn process_grids_are_as_cubic_as_the_cells_allow() {
    let cube = [60, 60, 60];
    let chosen: Vec<_> = [1, 2, 3, 4, 6, 8]
        .iter()
        .map(|&n| ProcessGrid3d::choose(n, cube, OPEN).unwrap().dims())
        .collect();
    assert_eq!(
        chosen,
        [
            [1, 1, 1],
            [1, 1, 2],
            [1, 1, 3],
            [1, 2, 2],
            [1, 2, 3],
            [2, 2, 2]
        ]
    );
    // Long along x: split x.
    assert_eq!(
        ProcessGrid3d::choose(4, [400, 10, 10], OPEN)
            .unwrap()
            .dims(),
        [4, 1, 1]
    );
    // Too few cells for the PEs.
    assert_eq!(
        ProcessGrid3d::choose(8, [1, 1, 7], OPEN),
        Err(DecompositionError::NoProcessGrid3d {
            n_pes: 8,
            nx: 1,
            ny: 1,
            nz: 7
        })
    );
    assert_eq!(
        ProcessGrid3d::choose(0, cube, OPEN),
        Err(DecompositionError::NoPes)
    );
    let grid = ProcessGrid3d::new([3, 2, 2], 12).unwrap();
    for pe in 0..12 {
        assert_eq!(grid.pe_at(grid.coordinates(pe)), pe);
    }
    assert_eq!(grid.coordinates(7), [1, 0, 1]);
    assert!(ProcessGrid3d::new([3, 2, 2], 11).is_err());
    assert!(ProcessGrid3d::new([usize::MAX, 2, 2], 4).is_err());
}

#[test]
fn boxes_tile_odd_grids_and_every_neighbour_touches() {
    let cells = [9usize, 7, 5];
    for boundaries in [OPEN, PERIODIC] {
        for n_pes in [1, 2, 3, 4, 6, 8] {
            let d = Decomposition3d::for_pes(cells, n_pes, boundaries).unwrap();
            let mut owners = vec![usize::MAX; 9 * 7 * 5];
            for pe in 0..n_pes {
                let owned = d.owned(pe);
                for z in owned.z.clone() {
                    for y in owned.y.clone() {
                        for x in owned.x.clone() {
                            let cell = &mut owners[(z * 7 + y) * 9 + x];
                            assert_eq!(*cell, usize::MAX, "cell owned twice");
                            *cell = pe;
                            assert_eq!(d.owner([x, y, z]), pe);
                        }
                    }
                }
                for direction in all_directions() {
                    // The cell one step beyond the box's first corner along `direction`
                    // belongs to the neighbour (or lies off an open grid).
                    let start = [owned.x.start, owned.y.start, owned.z.start];
                    let end = [owned.x.end, owned.y.end, owned.z.end];
                    let mut beyond = [0i64; 3];
                    for a in 0..3 {
                        beyond[a] = match direction.step()[a] {
                            -1 => start[a] as i64 - 1,
                            0 => start[a] as i64,
                            _ => end[a] as i64,
                        };
                    }
                    let inside = (0..3).all(|a| (0..cells[a] as i64).contains(&beyond[a]));
                    let expected = if inside || boundaries == PERIODIC {
                        let wrapped: [usize; 3] = core::array::from_fn(|a| {
                            beyond[a].rem_euclid(cells[a] as i64) as usize
                        });
                        Some(d.owner(wrapped))
                    } else {
                        None
                    };
                    assert_eq!(
                        d.neighbour(pe, direction),
                        expected,
                        "PE {pe} {direction:?}"
                    );
                    if let Some(other) = expected {
                        assert_eq!(d.neighbour(other, direction.opposite()), Some(pe));
                    }
                }
            }
            assert!(owners.iter().all(|&pe| pe != usize::MAX));
        }
    }
}

#[test]
fn sent_regions_land_on_the_receivers_halo_cell_for_cell() {
    // Odd sizes, every PE count: each cell a PE sends towards `d` is, in global coordinates,
    // the cell the neighbour's halo on side `-d` stands for.
    let cells = [11usize, 6, 7];
    for boundaries in [OPEN, PERIODIC] {
        for n_pes in [1, 2, 3, 4, 6, 8] {
            let d = Decomposition3d::for_pes(cells, n_pes, boundaries).unwrap();
            for pe in 0..n_pes {
                let me = d.patch(pe);
                for direction in all_directions() {
                    let Some(to) = me.neighbour(direction) else {
                        continue;
                    };
                    let them = d.patch(to as usize);
                    let send = me.send_region(direction);
                    let halo = them.halo_region(direction.opposite());
                    assert_eq!(send.count(), halo.count(), "PE {pe} {direction:?}");
                    assert!(send.count() > 0);
                    for i in 0..send.count() {
                        let (s, h) = (send.cell(i), halo.cell(i));
                        for a in 0..3 {
                            assert!(s[a] >= 1 && s[a] <= me.n[a], "sends an owned cell");
                            let sent = (me.origin[a] + s[a] - 1) as i64;
                            let stands_for = them.origin[a] as i64 + h[a] as i64 - 1;
                            assert_eq!(
                                sent,
                                stands_for.rem_euclid(cells[a] as i64),
                                "PE {pe} {direction:?} cell {i} axis {a}"
                            );
                        }
                        assert!(them.index(h) < them.len());
                    }
                }
            }
        }
    }
}

#[test]
fn patches_lay_out_the_halo_frame_and_round_trip_as_words() {
    let d =
        Decomposition3d::new([9, 7, 5], ProcessGrid3d::new([2, 2, 2], 8).unwrap(), OPEN).unwrap();
    assert_eq!(d.local_dims(), [32, 6, 5]);
    let p = d.patch(0);
    assert_eq!((p.n, p.origin), ([5, 4, 3], [0, 0, 0]));
    assert_eq!(p.len(), 32 * 6 * 5);
    assert_eq!(p.index([1, 2, 3]), (3 * 6 + 2) * 32 + 1);
    let up_corner = Direction3d::new(1, 1, 1);
    assert_eq!(p.neighbour(up_corner), Some(7));
    assert_eq!(p.neighbour(Direction3d::new(-1, 0, 0)), None);
    assert_eq!(
        p.halo_region(up_corner),
        Region3d {
            start: [6, 5, 4],
            extent: [1, 1, 1]
        }
    );
    let x_face = p.send_region(Direction3d::new(1, 0, 0));
    assert_eq!((x_face.start, x_face.extent), ([5, 1, 1], [1, 4, 3]));
    for pe in 0..8 {
        let patch = d.patch(pe);
        assert_eq!(Patch3d::from_words(&patch.to_words()), Some(patch));
    }
    assert_eq!(Patch3d::from_words(&[0; 3]), None);
    let whole = Patch3d::whole([9, 7, 5]);
    assert_eq!((whole.n, whole.neighbours), ([9, 7, 5], [-1; 26]));
    assert!(matches!(
        Decomposition3d::new(
            [1 << 12, 1 << 12, 1 << 12],
            ProcessGrid3d::new([1, 1, 1], 1).unwrap(),
            OPEN
        ),
        Err(DecompositionError::TooLarge { .. })
    ));
}

#[test]
fn one_pe_on_a_periodic_axis_is_its_own_neighbour() {
    let d = Decomposition3d::for_pes([4, 4, 4], 1, PERIODIC).unwrap();
    assert!(all_directions().all(|dir| d.neighbour(0, dir) == Some(0)));
    let open = Decomposition3d::for_pes([4, 4, 4], 1, OPEN).unwrap();
    assert!(all_directions().all(|dir| open.neighbour(0, dir).is_none()));
    assert_eq!(open.face_halo_cells(0), 0);
}
