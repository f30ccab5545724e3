//! The 26 directions from a box to its neighbours, numbered faces first.

/// One of the 26 directions from a box to its neighbours: a step of -1, 0 or +1 along each axis,
/// not all zero. Numbered 0..26: the 6 faces first (-x, +x, -y, +y, -z, +z), then the 12 edges,
/// then the 8 corners, so that
/// a 7-point stencil uses directions `0..6` and a 27-point one all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Direction3d {
    step: [i8; 3],
}

/// The directions in their numbering (see [`Direction3d`]).
const ALL_STEPS: [[i8; 3]; 26] = {
    // Faces by axis, low side first; then edges (two steps) and corners (three), x fastest.
    let mut steps = [[0i8; 3]; 26];
    steps[0] = [-1, 0, 0];
    steps[1] = [1, 0, 0];
    steps[2] = [0, -1, 0];
    steps[3] = [0, 1, 0];
    steps[4] = [0, 0, -1];
    steps[5] = [0, 0, 1];
    let mut next = 6;
    let mut moves = 2;
    while moves <= 3 {
        let mut code = 0;
        while code < 27 {
            let step = [
                (code % 3) as i8 - 1,
                (code / 3 % 3) as i8 - 1,
                (code / 9) as i8 - 1,
            ];
            let count = (step[0] != 0) as usize + (step[1] != 0) as usize + (step[2] != 0) as usize;
            if count == moves {
                steps[next] = step;
                next += 1;
            }
            code += 1;
        }
        moves += 1;
    }
    steps
};

impl Direction3d {
    /// Number of directions.
    pub const COUNT: usize = 26;

    /// Number of face directions (the first ones in the numbering).
    pub const FACES: usize = 6;

    /// The direction with steps `dx`, `dy`, `dz` (each -1, 0 or 1, not all 0).
    ///
    /// # Panics
    /// If a step is out of range or all are zero.
    pub const fn new(dx: i8, dy: i8, dz: i8) -> Direction3d {
        assert!(
            dx.abs() <= 1 && dy.abs() <= 1 && dz.abs() <= 1,
            "steps are -1, 0 or 1"
        );
        assert!(dx != 0 || dy != 0 || dz != 0, "a direction moves");
        Direction3d { step: [dx, dy, dz] }
    }

    /// Direction number `index` (0..26).
    ///
    /// # Panics
    /// If `index >= 26`.
    pub const fn from_index(index: usize) -> Direction3d {
        Direction3d {
            step: ALL_STEPS[index],
        }
    }

    /// This direction's number.
    pub const fn index(self) -> usize {
        let mut i = 0;
        while i < Self::COUNT {
            let s = ALL_STEPS[i];
            if s[0] == self.step[0] && s[1] == self.step[1] && s[2] == self.step[2] {
                return i;
            }
            i += 1;
        }
        unreachable!()
    }

    /// The steps `[dx, dy, dz]`.
    pub const fn step(self) -> [i8; 3] {
        self.step
    }

    /// Whether this is one of the six faces.
    pub const fn is_face(self) -> bool {
        self.index() < Self::FACES
    }

    /// The side a neighbour in this direction sees this PE on.
    pub const fn opposite(self) -> Direction3d {
        Direction3d {
            step: [-self.step[0], -self.step[1], -self.step[2]],
        }
    }
}
