//! Who a PE is: the variables the launcher sets, and [`PeIdentity`], which both sides build from
//! them or turn into them.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::PathBuf;

/// This PE's number, `0..N`. Its absence means the process was not started by the launcher.
pub const PE: &str = "NVSHMEMRS_PE";
/// The number of PEs in the job.
pub const N_PES: &str = "NVSHMEMRS_N_PES";
/// This PE's number among the PEs on its machine.
pub const LOCAL_PE: &str = "NVSHMEMRS_LOCAL_PE";
/// The number of PEs on this PE's machine.
pub const LOCAL_N_PES: &str = "NVSHMEMRS_LOCAL_N_PES";
/// How many PEs share one GPU.
pub const PES_PER_GPU: &str = "NVSHMEMRS_PES_PER_GPU";
/// The job's private rendezvous folder.
pub const RENDEZVOUS: &str = "NVSHMEMRS_RENDEZVOUS";

/// The most PEs a job may have. The launcher starts every PE on one machine, where this many
/// processes already far outnumber the GPUs they share; it also keeps every PE number within
/// NVSHMEM's `int`.
pub const MAX_PES: usize = 4096;

/// The most PEs that may share one GPU: more than MPS serves on one GPU (48 clients), so that a
/// count that can only be a mistake is refused before processes are started.
pub const MAX_PES_PER_GPU: usize = 64;

/// How many PEs share this process's GPU: [`PES_PER_GPU`] as the launcher (or a process manager's
/// job script) sets it, 1 where it is unset or not a positive number. The host picks the GPU by it,
/// and a kernel whose blocks wait on other PEs sizes its grid by it, since the PEs of one GPU
/// hold its multiprocessors together.
///
/// ```
/// assert!(nvshmem_pe_env::pes_per_gpu() >= 1);
/// ```
pub fn pes_per_gpu() -> usize {
    pes_per_gpu_from(std::env::var_os(PES_PER_GPU))
}

/// [`pes_per_gpu`] of a variable's value.
fn pes_per_gpu_from(value: Option<OsString>) -> usize {
    value
        .and_then(|value| value.to_str()?.trim().parse().ok())
        .filter(|&k: &usize| k > 0)
        .unwrap_or(1)
}

/// Who a PE is: what the launcher told it through its environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeIdentity {
    /// This PE's number, `0..n_pes`.
    pub pe: usize,
    /// The number of PEs in the job.
    pub n_pes: usize,
    /// This PE's number among the PEs on its machine, `0..local_n_pes`.
    pub local_pe: usize,
    /// The number of PEs on this PE's machine.
    pub local_n_pes: usize,
    /// How many PEs share one GPU (at least 1).
    pub pes_per_gpu: usize,
    /// The job's private rendezvous folder, made by the launcher and removed when the job ends.
    pub rendezvous: PathBuf,
}

impl PeIdentity {
    /// Reads this process's identity from the environment.
    ///
    /// Returns `Ok(None)` when [`PE`] is unset, which means the process was not started by the
    /// launcher. Returns an error when [`PE`] is set but any variable is missing, is not a number,
    /// or contradicts the others.
    pub fn from_env() -> Result<Option<PeIdentity>, PeEnvError> {
        Self::from_lookup(|name| std::env::var_os(name))
    }

    /// The GPU this PE should use, counted among the GPUs visible to it: `local_pe / pes_per_gpu`.
    ///
    /// ```
    /// # use nvshmem_pe_env::PeIdentity;
    /// let me = PeIdentity {
    ///     pe: 5, n_pes: 8, local_pe: 5, local_n_pes: 8, pes_per_gpu: 2,
    ///     rendezvous: "/tmp/job".into(),
    /// };
    /// assert_eq!(me.gpu_ordinal(), 2);
    /// ```
    pub fn gpu_ordinal(&self) -> usize {
        self.local_pe / self.pes_per_gpu
    }

    /// This PE's number and the job's PE count as NVSHMEM's `int`s, after checking that the
    /// numbers agree and are within [`MAX_PES`].
    ///
    /// ```
    /// # use nvshmem_pe_env::PeIdentity;
    /// let me = PeIdentity {
    ///     pe: 1, n_pes: 2, local_pe: 1, local_n_pes: 2, pes_per_gpu: 1,
    ///     rendezvous: "/tmp/job".into(),
    /// };
    /// assert_eq!(me.nvshmem_pe_and_n_pes(), Ok((1, 2)));
    /// ```
    pub fn nvshmem_pe_and_n_pes(&self) -> Result<(i32, i32), PeEnvError> {
        self.check()?;
        let int = |name: &'static str, value: usize| {
            i32::try_from(value).map_err(|_| PeEnvError::Inconsistent {
                problem: format!("{name}={value} does not fit NVSHMEM's int"),
            })
        };
        Ok((int(PE, self.pe)?, int(N_PES, self.n_pes)?))
    }

    /// The environment variables that describe this identity, as the launcher sets them.
    pub fn env_vars(&self) -> [(&'static str, OsString); 6] {
        [
            (PE, self.pe.to_string().into()),
            (N_PES, self.n_pes.to_string().into()),
            (LOCAL_PE, self.local_pe.to_string().into()),
            (LOCAL_N_PES, self.local_n_pes.to_string().into()),
            (PES_PER_GPU, self.pes_per_gpu.to_string().into()),
            (RENDEZVOUS, self.rendezvous.clone().into_os_string()),
        ]
    }

    /// [`PeIdentity::from_env`] over any source of variables.
    pub fn from_lookup(
        lookup: impl Fn(&str) -> Option<OsString>,
    ) -> Result<Option<PeIdentity>, PeEnvError> {
        if lookup(PE).is_none() {
            return Ok(None);
        }
        let number = |name: &'static str| -> Result<usize, PeEnvError> {
            let value = lookup(name).ok_or(PeEnvError::Missing { name })?;
            value
                .to_str()
                .and_then(|text| text.trim().parse::<usize>().ok())
                .ok_or(PeEnvError::NotANumber { name, value })
        };
        let identity = PeIdentity {
            pe: number(PE)?,
            n_pes: number(N_PES)?,
            local_pe: number(LOCAL_PE)?,
            local_n_pes: number(LOCAL_N_PES)?,
            pes_per_gpu: number(PES_PER_GPU)?,
            rendezvous: lookup(RENDEZVOUS)
                .filter(|path| !path.is_empty())
                .ok_or(PeEnvError::Missing { name: RENDEZVOUS })?
                .into(),
        };
        identity.check()?;
        Ok(Some(identity))
    }

    /// Checks that the numbers agree with each other.
    fn check(&self) -> Result<(), PeEnvError> {
        let problem = if self.pes_per_gpu == 0 {
            Some(format!("{PES_PER_GPU} is 0; it must be at least 1"))
        } else if self.pes_per_gpu > MAX_PES_PER_GPU {
            Some(format!(
                "{PES_PER_GPU}={} is more than {MAX_PES_PER_GPU}, the most PEs one GPU may hold",
                self.pes_per_gpu
            ))
        } else if self.n_pes > MAX_PES {
            Some(format!(
                "{N_PES}={} is more than {MAX_PES}, the most PEs a job may have",
                self.n_pes
            ))
        } else if self.pe >= self.n_pes {
            Some(format!(
                "{PE}={} is not below {N_PES}={}",
                self.pe, self.n_pes
            ))
        } else if self.local_pe >= self.local_n_pes {
            Some(format!(
                "{LOCAL_PE}={} is not below {LOCAL_N_PES}={}",
                self.local_pe, self.local_n_pes
            ))
        } else if self.local_n_pes > self.n_pes {
            Some(format!(
                "{LOCAL_N_PES}={} is more than {N_PES}={}",
                self.local_n_pes, self.n_pes
            ))
        } else {
            None
        };
        match problem {
            Some(problem) => Err(PeEnvError::Inconsistent { problem }),
            None => Ok(()),
        }
    }
}

/// The PE environment is present but unusable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PeEnvError {
    /// [`PE`] is set but another variable of the contract is not (or is empty).
    Missing {
        /// The missing variable.
        name: &'static str,
    },
    /// A variable that must hold a number does not.
    NotANumber {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: OsString,
    },
    /// The numbers contradict each other.
    Inconsistent {
        /// What is wrong.
        problem: String,
    },
}

impl fmt::Display for PeEnvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad PE environment: ")?;
        match self {
            PeEnvError::Missing { name } => write!(f, "{PE} is set but {name} is not")?,
            PeEnvError::NotANumber { name, value } => write!(
                f,
                "{name}={} is not a non-negative whole number",
                OsStr::new(value).display()
            )?,
            PeEnvError::Inconsistent { problem } => f.write_str(problem)?,
        }
        write!(
            f,
            "; start the program with nvshmemrun (which sets all NVSHMEMRS_* variables), \
             or unset {PE} to run it outside a job"
        )
    }
}

impl std::error::Error for PeEnvError {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn pes_per_gpu_is_the_variable_or_one() {
        let of = |text: Option<&str>| pes_per_gpu_from(text.map(OsString::from));
        assert_eq!(of(Some("8")), 8);
        assert_eq!(of(Some(" 2\n")), 2);
        for one in [None, Some(""), Some("0"), Some("-2"), Some("two")] {
            assert_eq!(of(one), 1, "{one:?}");
        }
    }

    fn parse(vars: &[(&str, &str)]) -> Result<Option<PeIdentity>, PeEnvError> {
        let map: HashMap<String, OsString> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        PeIdentity::from_lookup(|name| map.get(name).cloned())
    }

    fn full(overrides: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
        let mut vars = vec![
            (PE, "3"),
            (N_PES, "4"),
            (LOCAL_PE, "3"),
            (LOCAL_N_PES, "4"),
            (PES_PER_GPU, "2"),
            (RENDEZVOUS, "/tmp/rdv"),
        ];
        for (name, value) in overrides {
            vars.retain(|(n, _)| n != name);
            if !value.is_empty() {
                vars.push((name, value));
            }
        }
        vars
    }

    #[test]
    fn pe_numbers_reach_nvshmem_only_when_they_fit_its_int() {
        let mut me = parse(&full(&[])).unwrap().unwrap();
        assert_eq!(me.nvshmem_pe_and_n_pes(), Ok((3, 4)));
        me.n_pes = 1 << 32;
        me.pe = (1 << 32) - 1;
        let error = me.nvshmem_pe_and_n_pes().unwrap_err();
        assert!(
            error.to_string().contains("the most PEs a job may have"),
            "{error}"
        );
    }

    #[test]
    fn absent_pe_means_not_launched() {
        assert_eq!(parse(&[]), Ok(None));
        assert_eq!(parse(&[(N_PES, "4")]), Ok(None));
    }

    #[test]
    fn roundtrips_through_env_vars() {
        let me = parse(&full(&[])).unwrap().unwrap();
        assert_eq!(me.gpu_ordinal(), 1);
        let vars: HashMap<&str, OsString> = me.env_vars().into_iter().collect();
        assert_eq!(
            PeIdentity::from_lookup(|name| vars.get(name).cloned()),
            Ok(Some(me))
        );
    }

    #[test]
    fn rejects_missing_garbled_and_inconsistent_values() {
        let missing = parse(&full(&[(N_PES, "")])).unwrap_err();
        assert_eq!(missing, PeEnvError::Missing { name: N_PES });
        assert!(missing.to_string().contains("NVSHMEMRS_N_PES"));

        let garbled = parse(&full(&[(LOCAL_PE, "x1")])).unwrap_err();
        assert!(
            garbled.to_string().contains("NVSHMEMRS_LOCAL_PE=x1"),
            "{garbled}"
        );

        let negative = parse(&full(&[(PE, "-1")])).unwrap_err();
        assert!(matches!(negative, PeEnvError::NotANumber { name: PE, .. }));

        for bad in [
            full(&[(PE, "4")]),
            full(&[(LOCAL_PE, "4")]),
            full(&[(LOCAL_N_PES, "5"), (LOCAL_PE, "4")]),
            full(&[(PES_PER_GPU, "0")]),
            full(&[(PES_PER_GPU, "65")]),
            full(&[(N_PES, "4097"), (LOCAL_N_PES, "4097")]),
            full(&[(N_PES, "4294967296"), (LOCAL_N_PES, "4")]),
        ] {
            let err = parse(&bad).unwrap_err();
            assert!(matches!(err, PeEnvError::Inconsistent { .. }), "{err}");
            assert!(err.to_string().contains("nvshmemrun"), "{err}");
        }
    }

    proptest::proptest! {
        /// The same property as the `rendezvous` fuzz target's identity half: any values are an
        /// identity whose numbers agree, or an error.
        #[test]
        fn any_variables_are_a_consistent_identity_or_an_error(
            values in proptest::collection::vec(proptest::prop_oneof![8 => "[0-4]", 1 => "x|-1| 3|"], 6),
        ) {
            let names = [PE, N_PES, LOCAL_PE, LOCAL_N_PES, PES_PER_GPU, RENDEZVOUS];
            let lookup = |name: &str| {
                let i = names.iter().position(|n| *n == name)?;
                Some(OsString::from(&values[i]))
            };
            if let Ok(Some(me)) = PeIdentity::from_lookup(lookup) {
                proptest::prop_assert!(me.pe < me.n_pes && me.local_pe < me.local_n_pes);
                proptest::prop_assert!(me.pes_per_gpu > 0 && me.local_n_pes <= me.n_pes);
            }
        }
    }
}
