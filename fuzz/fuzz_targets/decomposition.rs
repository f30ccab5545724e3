//! The decomposition and tiling arithmetic of nvshmem-halo, on any grid, PE count and tiling: a
//! decomposition or an error, never a panic; and every decomposition accepted splits the grid
//! exactly (owned boxes tile it, neighbours are mutual, patches agree with the boxes), every tiling
//! covers each patch's rows and columns once, and every norm schedule counts its iterations.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use nvshmem_halo::{
    Boundary, Decomposition1d, Decomposition2d, NormSchedule, Patch, ProcessGrid, Tiling,
};

#[derive(Debug, Arbitrary)]
struct Input {
    nx: u32,
    ny: u32,
    /// Up to 1024 PEs, as many as the examples start.
    n_pes: u16,
    px: u8,
    wrap_x: bool,
    wrap_y: bool,
    how: u8,
    block_x: u16,
    rows_per_band: u16,
    vector: u8,
    iterations: u32,
    every: u32,
}

fn boundary(wrap: bool) -> Boundary {
    if wrap {
        Boundary::Periodic
    } else {
        Boundary::Open
    }
}

fuzz_target!(|input: Input| {
    let (nx, ny) = (input.nx as usize, input.ny as usize);
    let n_pes = usize::from(input.n_pes % 1025);
    let (bx, by) = (boundary(input.wrap_x), boundary(input.wrap_y));
    let decomposition = match input.how % 3 {
        0 => Decomposition1d::new(nx, ny, n_pes, by).map(|d| d.as_2d()),
        1 => {
            let px = usize::from(input.px).max(1);
            let grid = ProcessGrid { px, py: n_pes / px };
            Decomposition2d::new(nx, ny, grid, bx, by)
        }
        _ if n_pes <= 64 => Decomposition2d::for_pes(nx, ny, n_pes, bx, by),
        _ => return,
    };
    if let Ok(decomposition) = decomposition {
        check(&decomposition);
        let tiling = Tiling {
            block_x: u32::from(input.block_x % 1024) + 1,
            rows_per_band: u32::from(input.rows_per_band) + 1,
            vector: u32::from(input.vector % 8) + 1,
        };
        for pe in 0..decomposition.n_pes() {
            let patch = decomposition.patch(pe);
            let (blocks, bands) = tiling.grid(&patch);
            // Walking every block and band of a huge patch would only slow the search.
            if u64::from(blocks) + u64::from(bands) <= 1 << 12 {
                check_tiling(tiling, &patch);
            }
        }
    }
    if let Some(schedule) = NormSchedule::new(input.iterations, input.every) {
        let count = schedule.count();
        assert!(count >= 1);
        let last = schedule.iteration_of(count - 1);
        assert_eq!(last, input.iterations - 1);
        assert!(schedule.computes(last) && schedule.index(last) == count - 1);
    }
});

fn check(d: &Decomposition2d) {
    let (mut width, mut height) = (0, 0);
    let grid = d.grid();
    for pe in 0..d.n_pes() {
        let owned = d.owned(pe);
        assert!(
            !owned.x.is_empty() && !owned.y.is_empty(),
            "PE {pe} owns nothing"
        );
        assert_eq!(d.owner(owned.x.start, owned.y.start), pe);
        assert_eq!(d.owner(owned.x.end - 1, owned.y.end - 1), pe);
        let (column, row) = grid.coordinates(pe);
        if row == 0 {
            width += owned.x.len();
        }
        if column == 0 {
            height += owned.y.len();
        }
        let n = d.neighbours(pe);
        for (there, back) in [
            (n.up, "down"),
            (n.down, "up"),
            (n.left, "right"),
            (n.right, "left"),
        ] {
            if let Some(other) = there {
                let m = d.neighbours(other);
                let mutual = match back {
                    "down" => m.down,
                    "up" => m.up,
                    "right" => m.right,
                    _ => m.left,
                };
                assert_eq!(mutual, Some(pe), "PE {pe} and its neighbour {other}");
            }
        }
        let patch = d.patch(pe);
        assert_eq!(
            (patch.nx as usize, patch.ny as usize),
            (owned.x.len(), owned.y.len())
        );
        assert_eq!(
            (patch.x0 as usize, patch.y0 as usize),
            (owned.x.start, owned.y.start)
        );
        assert!(patch.pitch >= patch.nx + 2 && patch.rows >= patch.ny + 2);
        assert!(patch.index(patch.rows - 1, patch.pitch - 1) < patch.len());
    }
    assert_eq!((width, height), (d.nx(), d.ny()));
}

fn check_tiling(tiling: Tiling, patch: &Patch) {
    let (blocks, bands) = tiling.grid(patch);
    let mut columns = 0;
    for block in 0..blocks {
        let range = tiling.block_columns(patch, block);
        assert_eq!(range.start, columns, "column blocks leave a gap");
        columns = range.end;
    }
    assert_eq!(columns, patch.pitch);
    let mut rows = 1;
    for band in 0..bands {
        let range = tiling.band(patch, band);
        assert_eq!(range.start, rows, "bands leave a gap");
        rows = range.end;
    }
    assert_eq!(rows, patch.ny + 1);
    let mut covered = 0;
    for band in 0..tiling.boundary_first_bands(patch) {
        covered += tiling.boundary_first_band(patch, band).len() as u32;
    }
    assert_eq!(covered, patch.ny);
}
