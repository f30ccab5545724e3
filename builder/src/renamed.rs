//! Variables of the builder known by another name before: every variable of nvshmem-rs begins
//! with `NVSHMEMRS_`. An old name that is set is refused, with the name to use, rather than
//! ignored, so that a setting does not silently stop applying.

use crate::BuildError;
use crate::sass::SASS_VAR;
use crate::transport_pin::DEVICE_TRANSPORTS_VAR;

/// Each old name, and the variable that replaces it.
pub(crate) const RENAMED: [(&str, &str); 2] = [
    ("NVSHMEM_RS_SASS", SASS_VAR),
    ("NVSHMEM_RS_DEVICE_TRANSPORTS", DEVICE_TRANSPORTS_VAR),
];

/// [`BuildError::RenamedVariable`] for the first old name that `var` finds set.
pub(crate) fn refuse_old_names(var: impl Fn(&str) -> bool) -> Result<(), BuildError> {
    match RENAMED.iter().find(|(old, _)| var(old)) {
        Some(&(old, new)) => Err(BuildError::RenamedVariable { old, new }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_old_name_is_refused_naming_the_new_one() {
        let error = refuse_old_names(|name| name == "NVSHMEM_RS_SASS").unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("NVSHMEM_RS_SASS") && message.contains("NVSHMEMRS_SASS"),
            "{message}"
        );
        let error = refuse_old_names(|name| name == "NVSHMEM_RS_DEVICE_TRANSPORTS").unwrap_err();
        assert!(
            error.to_string().contains("NVSHMEMRS_DEVICE_TRANSPORTS"),
            "{error}"
        );
        assert!(refuse_old_names(|name| name == SASS_VAR).is_ok());
    }

    #[test]
    fn every_variable_has_the_one_prefix() {
        for (_, new) in RENAMED {
            assert!(new.starts_with("NVSHMEMRS_"), "{new}");
        }
    }
}
