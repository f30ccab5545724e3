//! The operation codes of NVSHMEM's comparisons and signal operations, the same values on the
//! device and on the host.

/// A comparison of NVSHMEM's wait, test and signal-wait calls (`nvshmemx_cmp_type_t`); the
/// condition is `*ivar <cmp> value`.
///
/// ```
/// use nvshmem_abi::Cmp;
/// assert_eq!(Cmp::Eq as i32, 0); // NVSHMEM_CMP_EQ
/// assert_eq!(Cmp::Ge as i32, 5); // NVSHMEM_CMP_GE
/// assert!(Cmp::Lt.holds(1, 2));
/// ```
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cmp {
    /// Equal (`NVSHMEM_CMP_EQ`).
    Eq = 0,
    /// Not equal (`NVSHMEM_CMP_NE`).
    Ne = 1,
    /// Greater than (`NVSHMEM_CMP_GT`).
    Gt = 2,
    /// Less than or equal (`NVSHMEM_CMP_LE`).
    Le = 3,
    /// Less than (`NVSHMEM_CMP_LT`).
    Lt = 4,
    /// Greater than or equal (`NVSHMEM_CMP_GE`).
    Ge = 5,
}

impl Cmp {
    /// Whether `left <cmp> right`, as NVSHMEM evaluates it.
    pub fn holds<T: PartialOrd>(self, left: T, right: T) -> bool {
        match self {
            Cmp::Eq => left == right,
            Cmp::Ne => left != right,
            Cmp::Gt => left > right,
            Cmp::Le => left <= right,
            Cmp::Lt => left < right,
            Cmp::Ge => left >= right,
        }
    }

    /// The operator as NUL-terminated C text (`"=="`, …), for device-side messages.
    pub const fn c_symbol(self) -> &'static core::ffi::CStr {
        match self {
            Cmp::Eq => c"==",
            Cmp::Ne => c"!=",
            Cmp::Gt => c">",
            Cmp::Le => c"<=",
            Cmp::Lt => c"<",
            Cmp::Ge => c">=",
        }
    }
}

/// What a signal operation does to the signal word (`nvshmemx_signal_op_t`).
///
/// ```
/// use nvshmem_abi::SignalOp;
/// assert_eq!(SignalOp::Set as i32, 9); // NVSHMEM_SIGNAL_SET
/// assert_eq!(SignalOp::Add as i32, 10); // NVSHMEM_SIGNAL_ADD
/// ```
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SignalOp {
    /// Stores the value (`NVSHMEM_SIGNAL_SET`).
    Set = 9,
    /// Adds the value atomically (`NVSHMEM_SIGNAL_ADD`).
    Add = 10,
}
