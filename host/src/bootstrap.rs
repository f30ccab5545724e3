//! How this process was started, and so how NVSHMEM bootstraps: through our launcher's unique id,
//! or through NVSHMEM's own PMI/PMI-2/PMIx plugins under `mpirun`/`srun`/hydra.

use crate::UniqueId;
use nvshmem_pe_env::PeIdentity;

/// NVSHMEM's bootstrap plugins for process managers (`nvshmem_bootstrap_*.so.3`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plugin {
    /// PMI-1, as MPICH's hydra `mpiexec` (and NVSHMEM's `nvshmrun`) serve it.
    Pmi1,
    /// PMI-2, as `srun --mpi=pmi2` serves it.
    Pmi2,
    /// PMIx, as Open MPI's `mpirun` and `srun --mpi=pmix` serve it (needs a `libpmix.so.2`
    /// compatible with the one NVSHMEM was built against).
    Pmix,
    /// MPI: NVSHMEM bootstraps over `MPI_COMM_WORLD` of the job's MPI library (`libmpi.so.40`).
    Mpi,
}

impl Plugin {
    /// The plugin's file, beside `libnvshmem_host.so.3`.
    pub fn file_name(self) -> &'static str {
        match self {
            Plugin::Pmi1 => "nvshmem_bootstrap_pmi.so.3",
            Plugin::Pmi2 => "nvshmem_bootstrap_pmi2.so.3",
            Plugin::Pmix => "nvshmem_bootstrap_pmix.so.3",
            Plugin::Mpi => "nvshmem_bootstrap_mpi.so.3",
        }
    }

    /// The values of `NVSHMEM_BOOTSTRAP` and `NVSHMEM_BOOTSTRAP_PMI` that select the plugin.
    pub fn nvshmem_variables(self) -> (&'static str, Option<&'static str>) {
        match self {
            Plugin::Pmi1 => ("PMI", Some("PMI")),
            Plugin::Pmi2 => ("PMI", Some("PMI-2")),
            Plugin::Pmix => ("PMI", Some("PMIX")),
            Plugin::Mpi => ("MPI", None),
        }
    }
}

/// How NVSHMEM is to bootstrap this PE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bootstrap {
    /// Started by `nvshmemrun`: PE 0 makes a unique id and hands it over through the job's folder.
    Launcher(PeIdentity),
    /// Started by a process manager: the first of these NVSHMEM plugins that loads finds the other
    /// PEs.
    ProcessManager {
        /// The plugins to try, in order of preference.
        plugins: Vec<Plugin>,
        /// The PE's rank among those on this node (picks the GPU).
        local_rank: usize,
    },
    /// `NVSHMEM_BOOTSTRAP` is set: NVSHMEM follows its own variables, untouched.
    NvshmemEnvironment {
        /// The PE's rank among those on this node, where a process manager says so.
        local_rank: usize,
    },
    /// The program exchanged a [`UniqueId`] itself (see [`Nvshmem::init_with_unique_id`]); build it
    /// with [`Bootstrap::unique_id`], which checks the numbers.
    ///
    /// [`Nvshmem::init_with_unique_id`]: crate::Nvshmem::init_with_unique_id
    UniqueId {
        /// The id rank 0 created.
        id: UniqueId,
        /// This PE's number.
        pe: i32,
        /// The number of PEs, all of which start with the same id.
        n_pes: i32,
    },
    /// Started by nothing: a job of one PE.
    SinglePe,
}

impl Bootstrap {
    /// Detects the bootstrap from the process environment.
    ///
    /// ```no_run
    /// let bootstrap = nvshmem_host::Bootstrap::detect()?;
    /// # Ok::<(), nvshmem_host::Error>(())
    /// ```
    pub fn detect() -> Result<Bootstrap, crate::Error> {
        if let Some(identity) = PeIdentity::from_env()? {
            return Ok(Bootstrap::Launcher(identity));
        }
        Ok(Bootstrap::from_variables(|name| std::env::var(name).ok()))
    }

    /// [`Bootstrap::detect`] for a program that relaunches itself when started directly: `None`
    /// where nothing started this process as a PE ([`Bootstrap::SinglePe`]). What
    /// `nvshmem_launch::run_pe_or_relaunch` takes.
    ///
    /// ```no_run
    /// match nvshmem_host::Bootstrap::detect_pe()? {
    ///     Some(bootstrap) => println!("one PE of a job: {bootstrap:?}"),
    ///     None => println!("started directly"),
    /// }
    /// # Ok::<(), nvshmem_host::Error>(())
    /// ```
    pub fn detect_pe() -> Result<Option<Bootstrap>, crate::Error> {
        Ok(Some(Bootstrap::detect()?).filter(|bootstrap| *bootstrap != Bootstrap::SinglePe))
    }

    /// Detection from any source of variables (the recorded environments of the tests).
    ///
    /// ```
    /// use nvshmem_host::{Bootstrap, Plugin};
    /// let slurm = |name: &str| match name {
    ///     "SLURM_PROCID" => Some("3".to_string()),
    ///     "SLURM_LOCALID" => Some("1".to_string()),
    ///     _ => None,
    /// };
    /// assert_eq!(
    ///     Bootstrap::from_variables(slurm),
    ///     Bootstrap::ProcessManager { plugins: vec![Plugin::Pmi2], local_rank: 1 }
    /// );
    /// ```
    pub fn from_variables(var: impl Fn(&str) -> Option<String>) -> Bootstrap {
        let number = |name: &str| var(name).and_then(|value| value.trim().parse::<usize>().ok());
        let local_rank = [
            "OMPI_COMM_WORLD_LOCAL_RANK",
            "SLURM_LOCALID",
            "MPI_LOCALRANKID",
            "PMI_LOCAL_RANK",
        ]
        .iter()
        .find_map(|name| number(name))
        .unwrap_or(0);
        if var("NVSHMEM_BOOTSTRAP").is_some() {
            return Bootstrap::NvshmemEnvironment { local_rank };
        }
        let plugins = if var("OMPI_COMM_WORLD_RANK").is_some() {
            // Open MPI serves PMIx; where the system's libpmix does not fit NVSHMEM's plugin, the
            // job's own MPI library (which started us) carries the bootstrap instead.
            vec![Plugin::Pmix, Plugin::Mpi]
        } else if var("SLURM_PROCID").is_some() {
            let pmix = var("SLURM_MPI_TYPE").is_some_and(|kind| kind.starts_with("pmix"))
                || var("PMIX_RANK").is_some();
            vec![if pmix { Plugin::Pmix } else { Plugin::Pmi2 }]
        } else if var("PMIX_RANK").is_some() {
            vec![Plugin::Pmix]
        } else if var("PMI_RANK").is_some()
            && (var("PMI_FD").is_some() || var("PMI_PORT").is_some())
        {
            vec![Plugin::Pmi1]
        } else {
            return Bootstrap::SinglePe;
        };
        Bootstrap::ProcessManager {
            plugins,
            local_rank,
        }
    }

    /// The bootstrap of PE `pe` of `n_pes` sharing `id`; an error unless `0 ≤ pe < n_pes`.
    ///
    /// ```
    /// # fn id() -> nvshmem_host::UniqueId {
    /// #     let mut bytes = nvshmem_sys::UNIQUEID_VERSION.to_ne_bytes().to_vec();
    /// #     bytes.resize(nvshmem_host::UniqueId::LEN, 0);
    /// #     nvshmem_host::UniqueId::from_bytes(&bytes).unwrap()
    /// # }
    /// let error = nvshmem_host::Bootstrap::unique_id(id(), 2, 2).unwrap_err();
    /// assert!(error.to_string().contains("pass a PE in 0..2"));
    /// ```
    pub fn unique_id(id: UniqueId, pe: i32, n_pes: i32) -> Result<Bootstrap, crate::Error> {
        if !(0..n_pes).contains(&pe) {
            return Err(crate::TeamError::InvalidPe { pe, n_pes }.into());
        }
        Ok(Bootstrap::UniqueId { id, pe, n_pes })
    }

    /// The rank of this PE among the PEs of its node.
    pub fn local_rank(&self) -> usize {
        match self {
            Bootstrap::Launcher(identity) => identity.local_pe,
            Bootstrap::ProcessManager { local_rank, .. }
            | Bootstrap::NvshmemEnvironment { local_rank } => *local_rank,
            Bootstrap::UniqueId { pe, .. } => *pe as usize,
            Bootstrap::SinglePe => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detect(pairs: &[(&str, &str)]) -> Bootstrap {
        Bootstrap::from_variables(|name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.to_string())
        })
    }

    #[test]
    fn open_mpi_tries_pmix_then_its_mpi_library_with_its_local_rank() {
        let env = [
            ("OMPI_COMM_WORLD_RANK", "5"),
            ("OMPI_COMM_WORLD_LOCAL_RANK", "1"),
            ("PMIX_RANK", "5"),
        ];
        assert_eq!(
            detect(&env),
            Bootstrap::ProcessManager {
                plugins: vec![Plugin::Pmix, Plugin::Mpi],
                local_rank: 1
            }
        );
    }

    #[test]
    fn slurm_uses_pmi2_unless_pmix_was_chosen() {
        let pmi2 = [
            ("SLURM_PROCID", "2"),
            ("SLURM_LOCALID", "2"),
            ("PMI_FD", "5"),
            ("PMI_RANK", "2"),
        ];
        assert_eq!(
            detect(&pmi2),
            Bootstrap::ProcessManager {
                plugins: vec![Plugin::Pmi2],
                local_rank: 2
            }
        );
        let pmix = [
            ("SLURM_PROCID", "2"),
            ("SLURM_LOCALID", "0"),
            ("SLURM_MPI_TYPE", "pmix_v4"),
        ];
        assert_eq!(
            detect(&pmix),
            Bootstrap::ProcessManager {
                plugins: vec![Plugin::Pmix],
                local_rank: 0
            }
        );
    }

    #[test]
    fn hydra_uses_pmi1() {
        let env = [
            ("PMI_RANK", "3"),
            ("PMI_FD", "7"),
            ("PMI_SIZE", "4"),
            ("MPI_LOCALRANKID", "3"),
        ];
        assert_eq!(
            detect(&env),
            Bootstrap::ProcessManager {
                plugins: vec![Plugin::Pmi1],
                local_rank: 3
            }
        );
    }

    #[test]
    fn an_explicit_nvshmem_bootstrap_is_left_alone() {
        let env = [
            ("NVSHMEM_BOOTSTRAP", "MPI"),
            ("OMPI_COMM_WORLD_RANK", "0"),
            ("OMPI_COMM_WORLD_LOCAL_RANK", "0"),
        ];
        assert_eq!(
            detect(&env),
            Bootstrap::NvshmemEnvironment { local_rank: 0 }
        );
    }

    #[test]
    fn nothing_means_one_pe() {
        assert_eq!(detect(&[("HOME", "/root")]), Bootstrap::SinglePe);
        assert_eq!(Bootstrap::SinglePe.local_rank(), 0);
    }
}
