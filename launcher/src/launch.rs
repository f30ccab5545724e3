//! Describing a job ([`Launch`]) and running it.

use std::ffi::OsString;
use std::fmt;
use std::io::{self, Write};
use std::num::NonZeroUsize;
use std::time::{Duration, Instant};

use nvshmem_pe_env::mps::{self, Mps};
use nvshmem_pe_env::rendezvous::JobFolder;
use nvshmem_pe_env::{MAX_PES, MAX_PES_PER_GPU, PeIdentity};

use crate::gpus::{self, GpuCountError};
use crate::mps_daemon::{MpsError, PrivateMps};
use crate::outcome::{Ending, Outcome, PeReport};
use crate::signals::SignalWatch;
use crate::supervise::{self, RunningPe};

/// A job to run: `n_pes` copies of one program on this machine.
///
/// ```no_run
/// use std::num::NonZeroUsize;
/// use std::time::Duration;
/// use nvshmem_launch::Launch;
///
/// let outcome = Launch::new("./ring")
///     .arg("--iterations=10")
///     .n_pes(NonZeroUsize::new(4).unwrap())
///     .timeout(Duration::from_secs(60))
///     .run()?;
/// std::process::exit(outcome.exit_code());
/// # Ok::<(), nvshmem_launch::JobStartError>(())
/// ```
///
/// A program can relaunch itself as a job when it was not started as a PE:
///
/// ```no_run
/// use nvshmem_launch::{Launch, pe_env::PeIdentity};
///
/// let Some(me) = PeIdentity::from_env()? else {
///     let job = Launch::current_program()?.args(std::env::args_os().skip(1));
///     std::process::exit(job.run_and_report());
/// };
/// println!("I am PE {} of {}", me.pe, me.n_pes);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    program: OsString,
    args: Vec<OsString>,
    n_pes: Option<NonZeroUsize>,
    pes_per_gpu: NonZeroUsize,
    timeout: Option<Duration>,
    prefix_output: bool,
    mps: bool,
}

impl Launch {
    /// A job running `program` (a path, or a name searched in `PATH`) with no arguments, one PE
    /// per visible GPU, no time limit, and output lines prefixed with `[pe K] `.
    pub fn new(program: impl Into<OsString>) -> Launch {
        Launch {
            program: program.into(),
            args: Vec::new(),
            n_pes: None,
            pes_per_gpu: NonZeroUsize::MIN,
            timeout: None,
            prefix_output: true,
            mps: false,
        }
    }

    /// A job running this very executable, with no arguments yet (pass this process's own, or a
    /// selection of them, with [`Launch::args`]): for a program that relaunches itself under the
    /// launcher when it was not started as a PE.
    pub fn current_program() -> io::Result<Launch> {
        Ok(Launch::new(std::env::current_exe()?))
    }

    /// Adds one argument for the program.
    pub fn arg(mut self, arg: impl Into<OsString>) -> Launch {
        self.args.push(arg.into());
        self
    }

    /// Adds arguments for the program.
    pub fn args(mut self, args: impl IntoIterator<Item = impl Into<OsString>>) -> Launch {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets the number of PEs. Without it, the job gets [`gpus::visible_gpu_count`] × the PEs per
    /// GPU. Either way it may not exceed the visible GPUs × the PEs per GPU, when the GPUs can be
    /// counted.
    pub fn n_pes(mut self, n_pes: NonZeroUsize) -> Launch {
        self.n_pes = Some(n_pes);
        self
    }

    /// Sets how many PEs share each GPU (default 1).
    pub fn pes_per_gpu(mut self, pes_per_gpu: NonZeroUsize) -> Launch {
        self.pes_per_gpu = pes_per_gpu;
        self
    }

    /// Limits the whole job to `timeout`; when it runs out the PEs are ended
    /// ([`Ending::TimedOut`]).
    pub fn timeout(mut self, timeout: Duration) -> Launch {
        self.timeout = Some(timeout);
        self
    }

    /// Whether the job runs under a private MPS control daemon (default `false`): when set and no
    /// MPS serves this machine yet ([`mps::detect`]), [`Launch::run`] starts
    /// `nvidia-cuda-mps-control -d` with pipe and log folders inside the job's private folder,
    /// gives every PE `CUDA_MPS_PIPE_DIRECTORY`, `CUDA_MPS_LOG_DIRECTORY` and
    /// `CUDA_MPS_ACTIVE_THREAD_PERCENTAGE` = 100 / the PEs sharing a GPU, and stops the daemon
    /// (`quit` through its own pipe folder) when the job ends, however it ends. An MPS that
    /// already runs is used as it is, and left running.
    ///
    /// Several PEs on one GPU need MPS for NVSHMEM's team creation, team barriers and collectives,
    /// and without it every wait on another PE costs a GPU time slice.
    pub fn mps(mut self, mps: bool) -> Launch {
        self.mps = mps;
        self
    }

    /// Whether each output line gets a `[pe K] ` prefix (default `true`).
    pub fn prefix_output(mut self, prefix: bool) -> Launch {
        self.prefix_output = prefix;
        self
    }

    /// The number of PEs this job will have, checked against the visible GPUs and against
    /// [`pe_env::MAX_PES`](crate::pe_env::MAX_PES) and
    /// [`pe_env::MAX_PES_PER_GPU`](crate::pe_env::MAX_PES_PER_GPU).
    pub fn resolve_n_pes(&self) -> Result<usize, JobStartError> {
        let pes_per_gpu = self.pes_per_gpu.get();
        if pes_per_gpu > MAX_PES_PER_GPU {
            return Err(JobStartError::TooMany {
                flag: "--pes-per-gpu",
                value: pes_per_gpu,
                max: MAX_PES_PER_GPU,
            });
        }
        let n_pes = self.resolve_uncapped(pes_per_gpu)?;
        if n_pes > MAX_PES {
            return Err(JobStartError::TooMany {
                flag: "-n",
                value: n_pes,
                max: MAX_PES,
            });
        }
        Ok(n_pes)
    }

    /// [`Launch::resolve_n_pes`] before the caps.
    fn resolve_uncapped(&self, pes_per_gpu: usize) -> Result<usize, JobStartError> {
        match (self.n_pes, gpus::visible_gpu_count()) {
            (Some(n), Ok(visible)) if n.get() > visible.saturating_mul(pes_per_gpu) => {
                Err(JobStartError::TooFewGpus {
                    n_pes: n.get(),
                    pes_per_gpu,
                    visible,
                })
            }
            (Some(n), _) => Ok(n.get()),
            (None, Ok(0)) => Err(JobStartError::NoVisibleGpu),
            (None, Ok(visible)) => Ok(visible.saturating_mul(pes_per_gpu)),
            (None, Err(error)) => Err(JobStartError::GpuCount(error)),
        }
    }

    /// What a job of `n_pes` PEs costs when several of them share a GPU without MPS, and how to
    /// avoid it; `None` when no GPU is shared, MPS serves the GPUs (`mps`, from [`mps::detect`]),
    /// or the job asks for its own ([`Launch::mps`]).
    pub fn sharing_warning(&self, n_pes: usize, mps: Option<&Mps>) -> Option<String> {
        let sharing = self.sharing(n_pes);
        (sharing > 1 && mps.is_none() && !self.mps).then(|| {
            format!(
                "{sharing} PEs will share a GPU without MPS: every wait on another PE then costs \
                 a GPU time slice (a 1-D heat step was measured at 2,247 µs with 2 PEs on one GPU \
                 without MPS, against 31 µs with 4 PEs under MPS), and NVSHMEM's limited mode \
                 refuses team creation, team barriers and collectives. Pass --mps to run the job \
                 under an MPS daemon of its own (the guide's page \"One GPU, several PEs\" says \
                 more)"
            )
        })
    }

    /// How many PEs of a job of `n_pes` share one GPU.
    fn sharing(&self, n_pes: usize) -> usize {
        n_pes.min(self.pes_per_gpu.get())
    }

    /// Runs the job: starts every PE, copies their output, and supervises them until they all
    /// end.
    ///
    /// Each PE runs in its own process group with the variables of [`crate::pe_env`], an empty
    /// stdin, and a fresh private rendezvous folder that is removed afterwards. Each line a PE
    /// writes goes to the launcher's stdout or stderr (as the PE wrote it), after its prefix.
    ///
    /// When a PE fails, the time limit runs out, or this process receives SIGINT, SIGTERM or
    /// SIGHUP, every PE's process group gets SIGTERM (or the received signal), and SIGKILL if it
    /// has not emptied 2 s later. A PE that prints one of NVSHMEM's fatal lines (`aborting due to
    /// error in …`) and has not exited 2 s later counts as failed
    /// ([`Ending::NvshmemAborted`]). While this runs, those three signals do not end this process
    /// (their previous handling is restored afterwards).
    ///
    /// With [`Launch::mps`], the job's MPS daemon is started before the first PE and stopped after
    /// the last has ended ([`Outcome::mps_left_running`] says if that failed).
    ///
    /// Errors only when the job could not start; how it ended is in the [`Outcome`].
    pub fn run(&self) -> Result<Outcome, JobStartError> {
        let n_pes = self.resolve_n_pes()?;
        let folder = JobFolder::create().map_err(JobStartError::Rendezvous)?;
        log::debug!(
            "starting {n_pes} PE(s) of {} at {} per GPU, rendezvous in {}",
            self.program.to_string_lossy(),
            self.pes_per_gpu,
            folder.path().display()
        );
        let signals = SignalWatch::start().map_err(JobStartError::Signals)?;
        let daemon = match (self.mps, mps::detect()) {
            (true, None) => Some(PrivateMps::start(folder.path()).map_err(JobStartError::Mps)?),
            (true, Some(running)) => {
                log::debug!("--mps: MPS already runs ({running}); the job uses it");
                None
            }
            (false, _) => None,
        };
        let mps_env = daemon
            .as_ref()
            .map(|daemon| daemon.env_vars(self.sharing(n_pes)));
        let mps_env = mps_env.as_ref().map_or(&[][..], |vars| &vars[..]);
        let start = Instant::now();
        let mut pes = Vec::with_capacity(n_pes);
        for pe in 0..n_pes {
            let identity = PeIdentity {
                pe,
                n_pes,
                local_pe: pe,
                local_n_pes: n_pes,
                pes_per_gpu: self.pes_per_gpu.get(),
                rendezvous: folder.path().to_path_buf(),
            };
            match RunningPe::spawn(
                &self.program,
                &self.args,
                &identity,
                mps_env,
                self.prefix_output,
            ) {
                Ok(running) => pes.push(running),
                Err(source) => {
                    supervise::stop_all(&mut pes, libc::SIGKILL, &signals);
                    supervise::drain_output(&mut pes);
                    pes.iter_mut().for_each(RunningPe::reap);
                    return Err(JobStartError::Spawn {
                        pe,
                        program: self.program.clone(),
                        source,
                    });
                }
            }
        }
        let ending = supervise::watch(&mut pes, start, self.timeout, &signals);
        match ending {
            Ending::Success => {}
            Ending::PeFailed { .. } | Ending::TimedOut { .. } | Ending::NvshmemAborted { .. } => {
                supervise::stop_all(&mut pes, libc::SIGTERM, &signals);
            }
            Ending::Interrupted { signal } => supervise::stop_all(&mut pes, signal, &signals),
        }
        supervise::drain_output(&mut pes);
        let pes: Vec<PeReport> = pes.into_iter().map(RunningPe::into_report).collect();
        let elapsed = start.elapsed();
        let mps_left_running = daemon
            .map(PrivateMps::stop)
            .and_then(Result::err)
            .map(|error| error.to_string());
        Ok(Outcome {
            ending,
            pes,
            elapsed,
            mps_left_running,
        })
    }

    /// Runs the job like [`Launch::run`], prints why it failed (if it did) to stderr, and returns
    /// the exit status the launcher should end with (see [`exit_code`]).
    ///
    /// Before the job starts, it warns when several PEs would share a GPU without MPS
    /// ([`Launch::sharing_warning`]).
    pub fn run_and_report(&self) -> i32 {
        // A closed stderr must not turn a report into a panic, so write errors are ignored.
        if let Ok(n_pes) = self.resolve_n_pes()
            && let Some(warning) = self.sharing_warning(n_pes, mps::detect().as_ref())
        {
            let _ = writeln!(io::stderr(), "nvshmemrun: warning: {warning}");
        }
        let result = self.run();
        if let Ok(Outcome {
            mps_left_running: Some(why),
            ..
        }) = &result
        {
            let _ = writeln!(io::stderr(), "nvshmemrun: warning: {why}");
        }
        let _ = match &result {
            Ok(outcome) if outcome.ending != Ending::Success => {
                writeln!(io::stderr(), "nvshmemrun: {outcome}").and_then(|()| {
                    match nvshmem_pe_env::mps::detect().and_then(|mps| outcome.mps_advice(&mps)) {
                        Some(advice) => writeln!(io::stderr(), "nvshmemrun: {advice}"),
                        None => Ok(()),
                    }
                })
            }
            Ok(_) => Ok(()),
            Err(error) => writeln!(io::stderr(), "nvshmemrun: error: {error}"),
        };
        exit_code(&result)
    }
}

/// The exit status for the result of [`Launch::run`]: [`Outcome::exit_code`] for a job that ran,
/// [`JobStartError::exit_code`] for one that could not start.
pub fn exit_code(result: &Result<Outcome, JobStartError>) -> i32 {
    match result {
        Ok(outcome) => outcome.exit_code(),
        Err(error) => error.exit_code(),
    }
}

/// A job could not start.
#[derive(Debug)]
pub enum JobStartError {
    /// No PE count was given and no GPU could be counted.
    GpuCount(GpuCountError),
    /// No PE count was given and `CUDA_VISIBLE_DEVICES` is empty.
    NoVisibleGpu,
    /// More PEs were asked for than the visible GPUs can hold at the PEs-per-GPU setting.
    TooFewGpus {
        /// The PEs asked for.
        n_pes: usize,
        /// The PEs per GPU.
        pes_per_gpu: usize,
        /// The GPUs visible.
        visible: usize,
    },
    /// More PEs, or PEs per GPU, than a job may have.
    TooMany {
        /// The flag that sets the number (`-n` also for the default count).
        flag: &'static str,
        /// The number asked for.
        value: usize,
        /// The most allowed.
        max: usize,
    },
    /// The rendezvous folder could not be created.
    Rendezvous(io::Error),
    /// The launcher's signal handlers could not be installed.
    Signals(io::Error),
    /// The job's MPS daemon ([`Launch::mps`]) could not be started (nothing else was).
    Mps(MpsError),
    /// A PE's process could not be started (the PEs started before it were ended).
    Spawn {
        /// The PE.
        pe: usize,
        /// The program.
        program: OsString,
        /// Why it could not start.
        source: io::Error,
    },
}

impl JobStartError {
    /// The exit status for this error: 2 for a PE count that does not fit the GPUs (as for a usage
    /// error), 127 for a program that was not found, 126 for one that may not be run, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        match self {
            JobStartError::GpuCount(_)
            | JobStartError::NoVisibleGpu
            | JobStartError::TooFewGpus { .. }
            | JobStartError::TooMany { .. } => 2,
            JobStartError::Spawn { source, .. } => match source.kind() {
                io::ErrorKind::NotFound => 127,
                io::ErrorKind::PermissionDenied => 126,
                _ => 1,
            },
            JobStartError::Rendezvous(_) | JobStartError::Signals(_) | JobStartError::Mps(_) => 1,
        }
    }
}

impl fmt::Display for JobStartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JobStartError::GpuCount(error) => write!(f, "{error}"),
            JobStartError::NoVisibleGpu => write!(
                f,
                "{} is empty, which hides every GPU, and nvshmem-rs needs at least one; set it to \
                 the GPUs to use (e.g. 0,1; `nvidia-smi -L` lists them) or unset it",
                gpus::CUDA_VISIBLE_DEVICES
            ),
            JobStartError::TooFewGpus {
                n_pes,
                pes_per_gpu,
                visible,
            } => {
                let needed = n_pes.div_ceil(*pes_per_gpu);
                let gpu_word = if needed == 1 { "GPU" } else { "GPUs" };
                write!(
                    f,
                    "-n {n_pes} needs {needed} {gpu_word} at --pes-per-gpu {pes_per_gpu} but "
                )?;
                if *visible == 0 {
                    write!(
                        f,
                        "none is visible ({} is empty); set {0} to the GPUs to use, or unset it",
                        gpus::CUDA_VISIBLE_DEVICES
                    )
                } else {
                    let verb = if *visible == 1 { "is" } else { "are" };
                    write!(
                        f,
                        "{visible} {verb} visible; pass --pes-per-gpu {} to share GPUs, or a \
                         smaller -n",
                        n_pes.div_ceil(*visible)
                    )
                }
            }
            JobStartError::TooMany { flag, value, max } => write!(
                f,
                "{flag} {value} is more than {max}, the most a job may have (all its PEs run on \
                 this machine); pass {flag} {max} or less"
            ),
            JobStartError::Rendezvous(error) => write!(
                f,
                "could not create the job's rendezvous folder: {error}; check that the temporary \
                 folder (TMPDIR, else /tmp) exists and is writable"
            ),
            JobStartError::Signals(error) => {
                write!(
                    f,
                    "could not install the launcher's signal handlers: {error}"
                )
            }
            JobStartError::Mps(error) => write!(f, "{error}"),
            JobStartError::Spawn {
                pe,
                program,
                source,
            } => write!(
                f,
                "could not start PE {pe} as `{}`: {source}; check that the program exists and is \
                 executable (a name without `/` is searched in PATH)",
                program.display()
            ),
        }
    }
}

impl std::error::Error for JobStartError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            JobStartError::GpuCount(error) => Some(error),
            JobStartError::Mps(error) => Some(error),
            JobStartError::Rendezvous(error) | JobStartError::Signals(error) => Some(error),
            JobStartError::Spawn { source, .. } => Some(source),
            JobStartError::NoVisibleGpu
            | JobStartError::TooFewGpus { .. }
            | JobStartError::TooMany { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_count_of_pes_per_gpu_is_refused_before_anything_starts() {
        let huge = NonZeroUsize::new(1 << 62).unwrap();
        let error = Launch::new("prog")
            .pes_per_gpu(huge)
            .resolve_n_pes()
            .unwrap_err();
        assert!(matches!(error, JobStartError::TooMany { .. }), "{error:?}");
        assert_eq!(
            error.to_string(),
            format!(
                "--pes-per-gpu {} is more than {MAX_PES_PER_GPU}, the most a job may have (all \
                 its PEs run on this machine); pass --pes-per-gpu {MAX_PES_PER_GPU} or less",
                1usize << 62
            )
        );
        assert_eq!(error.exit_code(), 2);
    }

    #[test]
    fn too_few_gpus_says_how_to_share() {
        let error = JobStartError::TooFewGpus {
            n_pes: 4,
            pes_per_gpu: 1,
            visible: 1,
        };
        assert_eq!(
            error.to_string(),
            "-n 4 needs 4 GPUs at --pes-per-gpu 1 but 1 is visible; pass --pes-per-gpu 4 to \
             share GPUs, or a smaller -n"
        );
        assert_eq!(error.exit_code(), 2);
    }

    #[test]
    fn hidden_gpus_say_how_to_show_them_not_to_pass_a_count() {
        let text = JobStartError::NoVisibleGpu.to_string();
        assert!(
            text.contains("CUDA_VISIBLE_DEVICES is empty") && text.contains("or unset it"),
            "{text}"
        );
        // -n cannot help: with every GPU hidden any count is too many.
        assert!(!text.contains("-n N"), "{text}");
    }
}
