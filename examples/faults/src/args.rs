//! The faults example's command line (its own file, so that `fuzz/` can include it without the
//! kernels).

use clap::{Parser, ValueEnum};

/// One PE (the victim) dies while the others wait for it in a device-side barrier; the launcher must
/// end the job within 5 s, naming the victim. Run it under the launcher: nvshmemrun -n 2 faults
/// --fault exit.
#[derive(Parser, Debug, PartialEq)]
#[command(name = "faults", version)]
pub(crate) struct Args {
    /// How the victim dies
    #[arg(long, value_enum)]
    pub(crate) fault: Fault,
    /// The PE that dies
    #[arg(long, value_name = "PE", default_value_t = 1, allow_hyphen_values = true,
          value_parser = clap::value_parser!(i32).range(0..))]
    pub(crate) victim: i32,
}

/// How the victim dies.
#[derive(Clone, Copy, Debug, PartialEq, ValueEnum)]
pub(crate) enum Fault {
    /// Exits with status 3
    Exit,
    /// Sends itself SIGKILL
    Kill,
    /// Writes through a null pointer (SIGSEGV)
    Segv,
    /// Panics
    Panic,
    /// Puts to PE n_pes, which does not exist: the device check traps, the victim exits with 4
    BadPe,
    /// A safe kernel takes a range past the end of its slice: the bounds check traps, the victim
    /// exits with 4
    SlicePastEnd,
    /// Every PE runs a kernel whose barrier only the victim reaches: the victim's barrier times
    /// out (NVSHMEMRS_DEVICE_TIMEOUT_S) and traps, the victim exits with 4
    BarrierInBranch,
    /// The victim waits for a flag nobody sets: its wait times out and traps, it exits with 4
    UnsetFlag,
    /// Nobody dies: every PE passes the barrier (the control case)
    None,
}
