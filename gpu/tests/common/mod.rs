//! Helpers shared by the tests that read the crate's sources.

use std::path::{Path, PathBuf};

/// The Rust sources under `dir`, folders included.
pub fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("the source folder is readable") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            files.extend(sources(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    files
}
