//! Starts one process per PE on this machine and supervises them: a single-node `mpirun` for
//! nvshmem-rs programs.
//!
//! The `nvshmemrun` binary is a thin command line ([`cli`]) over [`Launch`]:
//!
//! ```text
//! nvshmemrun -n 4 --timeout 60 ./ring --iterations 10
//! ```
//!
//! - [`pe_env`]: the environment every PE gets, [`pe_env::PeIdentity`] to read it back, and the
//!   job's rendezvous folder (the crate `nvshmem-pe-env`, which the PEs' side, `nvshmem-host`,
//!   shares);
//! - [`gpus`]: counting the visible GPUs, which sets the default PE count;
//! - [`Launch`]: describing and running a job; [`Outcome`]: how it ended;
//! - [`run_pe_or_relaunch`]: the `main` of a program that relaunches itself under the launcher when
//!   started directly, and does one PE's part when started as a PE.
//!
//! Supervision: each PE runs in its own process group; its stdout and stderr lines go to the
//! launcher's stdout and stderr behind a `[pe K] ` prefix, and its last [`TAIL_LINES`] lines are
//! kept. When a PE exits non-zero or is killed, the time limit runs out, or the launcher gets
//! SIGINT, SIGTERM or SIGHUP, every PE's group gets SIGTERM (or that signal) and, 2 s later,
//! SIGKILL; the launcher then reports the cause with the PE's last lines and exits with its status.
//! A PE whose output says that NVSHMEM is ending it (`aborting due to error in …`) but which has
//! not exited 2 s later fails the same way, with status 255: NVSHMEM's own `exit` can hang.
//!
//! Several PEs per GPU: NVSHMEM needs NVIDIA's MPS for team creation, team barriers and
//! collectives there, and without it every wait on another PE costs a GPU time slice.
//! [`Launch::run_and_report`] warns before such a job starts ([`Launch::sharing_warning`]);
//! [`Launch::mps`] (`nvshmemrun --mps`) runs the job under an MPS control daemon of its own, with
//! private pipe and log folders, stopped when the job ends, however it ends ([`MpsError`] when it
//! cannot start). An MPS that already runs is used and never stopped.
//!
//! Diagnostics: the library logs what it found and chose (the GPUs counted, the job started) at
//! `debug` through the `log` crate; it prints only the PEs' output and, in
//! [`Launch::run_and_report`] and [`relaunch_current_program`], the report that is the launcher's
//! answer. A program without a logger loses nothing that matters: every error is also returned.

pub mod cli;
pub mod gpus;
mod groups;
mod launch;
mod mps_daemon;
mod nvshmem_abort;
mod outcome;
mod output;
mod relaunch;
mod signals;
mod supervise;

pub use launch::{JobStartError, Launch, exit_code};
pub use mps_daemon::MpsError;
/// The environment contract between the launcher and its PEs, shared with `nvshmem-host`.
pub use nvshmem_pe_env as pe_env;
pub use outcome::{Ending, NVSHMEM_EXIT_STATUS, Outcome, PeEnd, PeReport};
pub use output::TAIL_LINES;
pub use relaunch::{relaunch_current_program, run_pe_or_relaunch};
