//! The data check after each bandwidth case: before the case every PE fills its source with that
//! case's pattern and its destination with [`POISON`]; after it, the PE that received the data
//! compares its whole destination with what the case should have left there. A case that wrote
//! nothing leaves poison, one that wrote stale data leaves another case's pattern, one that wrote
//! past its place overwrites poison: each is a mismatch. `bench/reference/micro.cu` checks alike.

/// What destination buffers hold before a case, so that unwritten elements show.
pub const POISON: u64 = 0xDEAD_BEEF_DEAD_BEEF;

/// The value PE `pe`'s source holds at element `i` during case number `case` (0 before any case):
/// another value for every case and PE, so that data of an earlier case or of another PE show.
pub fn pattern(case: u64, pe: i32, i: usize) -> u64 {
    (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (case << 32 | (pe as u64 + 1))
}

/// The elements of `received` that differ from what case `case` should have left: `sender`'s
/// pattern of the case in the `count` elements from each offset in `written`, [`POISON`]
/// everywhere else.
///
/// # Panics
/// If an offset + `count` lies past the end of `received` (the case's launches stayed inside it).
pub fn mismatches(
    received: &[u64],
    case: u64,
    sender: i32,
    written: &[usize],
    count: usize,
) -> usize {
    let mut covered = vec![false; received.len()];
    for &offset in written {
        covered[offset..offset + count].fill(true);
    }
    received
        .iter()
        .zip(covered)
        .enumerate()
        .filter(|&(i, (&value, wrote))| {
            let expected = if wrote {
                pattern(case, sender, i)
            } else {
                POISON
            };
            value != expected
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The destination after case `case` of `sender` wrote `count` elements at each of `written`.
    fn after(len: usize, case: u64, sender: i32, written: &[usize], count: usize) -> Vec<u64> {
        let mut buffer = vec![POISON; len];
        for &offset in written {
            for (i, value) in buffer.iter_mut().enumerate().skip(offset).take(count) {
                *value = pattern(case, sender, i);
            }
        }
        buffer
    }

    #[test]
    fn a_case_that_wrote_its_places_passes() {
        let received = after(64, 3, 1, &[0, 16, 48], 8);
        assert_eq!(mismatches(&received, 3, 1, &[0, 16, 48], 8), 0);
    }

    #[test]
    fn a_case_that_wrote_nothing_fails_in_every_element_it_owed() {
        let received = vec![POISON; 64];
        assert_eq!(mismatches(&received, 3, 1, &[0, 16, 48], 8), 24);
    }

    #[test]
    fn stale_data_of_the_case_before_fail() {
        let received = after(64, 2, 1, &[0, 16, 48], 8);
        assert_eq!(mismatches(&received, 3, 1, &[0, 16, 48], 8), 24);
    }

    #[test]
    fn data_of_another_pe_fail() {
        let received = after(64, 3, 0, &[0, 16], 8);
        assert_eq!(mismatches(&received, 3, 1, &[0, 16], 8), 16);
    }

    #[test]
    fn a_write_past_the_case_places_fails() {
        let mut received = after(64, 3, 1, &[0, 16], 8);
        received[24] = pattern(3, 1, 24);
        assert_eq!(mismatches(&received, 3, 1, &[0, 16], 8), 1);
    }

    #[test]
    fn every_case_and_pe_has_its_own_pattern() {
        for i in [0, 1, 1000, 1 << 30] {
            let values = [
                pattern(1, 0, i),
                pattern(2, 0, i),
                pattern(1, 1, i),
                pattern(2, 1, i),
            ];
            for (a, x) in values.iter().enumerate() {
                assert_ne!(*x, POISON);
                for y in &values[a + 1..] {
                    assert_ne!(x, y, "element {i}");
                }
            }
        }
    }
}
