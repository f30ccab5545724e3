//! The length checks of host calls on device memory, as pure functions of the lengths and counts
//! they are given: each returns the element or byte count the call passes on, computed with checked
//! arithmetic, so that a count near `usize::MAX` is refused ([`MemoryError::Overflow`]) instead of
//! wrapping to a small number that passes the check and then moves far more than the buffers hold.
//! They run before anything is enqueued, and the unit tests below run them without a GPU.

use crate::{Error, MemoryError};

/// `count × factor`, or [`MemoryError::Overflow`] naming `quantity`.
pub(crate) fn product(
    quantity: &'static str,
    count: usize,
    factor: usize,
) -> Result<usize, MemoryError> {
    count.checked_mul(factor).ok_or(MemoryError::Overflow {
        quantity,
        count,
        factor,
    })
}

/// The bytes of `count` elements of `T`.
pub(crate) fn bytes<T>(count: usize) -> Result<usize, MemoryError> {
    product(
        "the byte count (elements × element size)",
        count,
        size_of::<T>(),
    )
}

/// An error unless `len ≥ needed`.
pub(crate) fn need(buffer: &'static str, len: usize, needed: usize) -> Result<(), Error> {
    if len >= needed {
        Ok(())
    } else {
        Err(MemoryError::BufferTooShort {
            buffer,
            len,
            needed,
        }
        .into())
    }
}

/// An error unless `index` names an element of a buffer of `len` elements.
pub(crate) fn index_in(buffer: &'static str, len: usize, index: usize) -> Result<(), Error> {
    if index < len {
        Ok(())
    } else {
        Err(MemoryError::IndexOutOfRange { buffer, index, len }.into())
    }
}

/// `count` elements per PE of a team of `n` PEs.
fn per_team(count: usize, n: usize) -> Result<usize, MemoryError> {
    product(
        "the elements of a collective (count × the team's size)",
        count,
        n,
    )
}

/// A put or get of `count` elements of `T` between buffers of `dest` and `source` elements: the
/// bytes it moves.
pub(crate) fn transfer<T>(dest: usize, source: usize, count: usize) -> Result<usize, Error> {
    need("dest", dest, count)?;
    need("source", source, count)?;
    Ok(bytes::<T>(count)?)
}

/// A reduction of `count` elements: both buffers hold them.
pub(crate) fn reduce(dest: usize, source: usize, count: usize) -> Result<(), Error> {
    need("dest", dest, count)?;
    need("source", source, count)
}

/// A reduce-scatter of `count` elements per PE over `n` PEs: `dest` holds `count`, `source`
/// `count × n`.
pub(crate) fn reducescatter(
    dest: usize,
    source: usize,
    count: usize,
    n: usize,
) -> Result<(), Error> {
    need("dest", dest, count)?;
    need("source", source, per_team(count, n)?)
}

/// A broadcast of `count` elements of `T`: the bytes of each PE's block.
pub(crate) fn broadcast<T>(dest: usize, source: usize, count: usize) -> Result<usize, Error> {
    transfer::<T>(dest, source, count)
}

/// An all-gather of `count` elements of `T` per PE over `n` PEs: `dest` holds `count × n`, `source`
/// `count`; the bytes of each PE's block.
pub(crate) fn fcollect<T>(
    dest: usize,
    source: usize,
    count: usize,
    n: usize,
) -> Result<usize, Error> {
    need("dest", dest, per_team(count, n)?)?;
    need("source", source, count)?;
    Ok(bytes::<T>(count)?)
}

/// An all-to-all of `count` elements of `T` per pair of PEs over `n` PEs: both buffers hold
/// `count × n`; the bytes of each block.
pub(crate) fn alltoall<T>(
    dest: usize,
    source: usize,
    count: usize,
    n: usize,
) -> Result<usize, Error> {
    let total = per_team(count, n)?;
    need("dest", dest, total)?;
    need("source", source, total)?;
    Ok(bytes::<T>(count)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overflow(result: Result<impl std::fmt::Debug, Error>) -> String {
        match result {
            Err(error @ Error::Memory(MemoryError::Overflow { .. })) => error.to_string(),
            other => panic!("expected an overflow, got {other:?}"),
        }
    }

    #[test]
    fn checks_name_the_buffer() {
        let error = need("source", 3, 8).unwrap_err().to_string();
        assert!(
            error.contains("`source` buffer has 3 element(s)"),
            "{error}"
        );
        assert!(need("dest", 8, 8).is_ok());
    }

    #[test]
    fn the_last_signal_word_is_in_range_and_usize_max_is_not() {
        assert!(index_in("signal", 4, 3).is_ok());
        assert!(index_in("signal", 4, 4).is_err());
        let error = index_in("signal", 4, usize::MAX).unwrap_err();
        assert!(
            matches!(
                error,
                Error::Memory(MemoryError::IndexOutOfRange {
                    index: usize::MAX,
                    len: 4,
                    ..
                })
            ),
            "{error}"
        );
        let message = error.to_string();
        assert!(
            message.contains("index 18446744073709551615 is past the end of the `signal` buffer"),
            "{message}"
        );
    }

    #[test]
    fn an_alltoall_count_that_wraps_is_refused() {
        // 64-byte buffers of u64 over 2 PEs: 1 << 63 elements per block wrap to 0 in
        // `count × n` and to 0 bytes in `count × 8`.
        let message = overflow(alltoall::<u64>(8, 8, 1 << 63, 2));
        assert!(
            message.contains("(9223372036854775808 × 2) does not fit in usize"),
            "{message}"
        );
        overflow(alltoall::<u64>(8, 8, usize::MAX, 2));
        assert_eq!(alltoall::<u64>(8, 8, 4, 2).unwrap(), 32);
        assert!(alltoall::<u64>(8, 8, 5, 2).is_err());
    }

    #[test]
    fn collective_counts_that_wrap_are_refused() {
        overflow(fcollect::<u32>(16, 16, 1 << 63, 2));
        overflow(fcollect::<u32>(usize::MAX, usize::MAX, usize::MAX, 1));
        assert_eq!(fcollect::<u32>(16, 8, 8, 2).unwrap(), 32);
        // `dest` holds `count`, so only a `dest` of 1 << 63 elements lets `count × n` wrap.
        overflow(reducescatter(usize::MAX, 16, 1 << 63, 2));
        overflow(reducescatter(usize::MAX, 16, usize::MAX, 3));
        assert!(reducescatter(8, 16, 8, 2).is_ok());
        overflow(broadcast::<u16>(usize::MAX, usize::MAX, usize::MAX));
        assert_eq!(broadcast::<u16>(4, 4, 4).unwrap(), 8);
    }

    #[test]
    fn transfer_bytes_that_wrap_are_refused() {
        // Only a buffer of more than usize::MAX / 8 elements could pass the length check.
        let message = overflow(transfer::<u64>(usize::MAX, usize::MAX, 1 << 63));
        assert!(
            message.contains("the byte count (elements × element size) (9223372036854775808 × 8)"),
            "{message}"
        );
        assert_eq!(transfer::<u64>(4, 4, 4).unwrap(), 32);
        assert!(reduce(4, 3, 4).is_err() && reduce(4, 4, 4).is_ok());
    }
}
