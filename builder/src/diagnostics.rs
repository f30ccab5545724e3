//! The kernel crate's compiler messages as the user reads them: rustc's rendered text, with the
//! locations of the kernel crate's files made relative to the root of the project being built.
//!
//! The nested cargo runs rustc in the kernel crate's own workspace root, so rustc names its files
//! from there (`src/lib.rs`); cargo names the project's other files from the project's workspace
//! root (`kernels/src/lib.rs`), and editors and terminals open them from there.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where rustc's relative paths start, and where the user's start.
#[derive(Debug, Clone)]
pub(crate) struct SourcePaths {
    /// The folder rustc ran in: the kernel crate's workspace root.
    pub compiled_in: PathBuf,
    /// The folder the user's paths start at: the calling crate's workspace root, else the current
    /// folder.
    pub shown_from: PathBuf,
}

impl SourcePaths {
    /// The folders for the kernel crate `kernel_manifest`, built from the crate in `caller_dir`
    /// (its `CARGO_MANIFEST_DIR`, when a build script calls), as `cargo` finds their workspaces.
    pub(crate) fn find(cargo: &OsStr, kernel_manifest: &Path, caller_dir: Option<&Path>) -> Self {
        let kernel_dir = kernel_manifest.parent().unwrap_or(Path::new("."));
        let compiled_in =
            workspace_root(cargo, kernel_manifest).unwrap_or_else(|| kernel_dir.to_path_buf());
        let shown_from = caller_dir
            .and_then(|dir| workspace_root(cargo, &dir.join("Cargo.toml")))
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| compiled_in.clone());
        SourcePaths {
            compiled_in,
            shown_from,
        }
    }

    /// `path` as rustc printed it, as the user opens it: relative to [`SourcePaths::shown_from`]
    /// when it lies below it, else absolute. Paths that are not files (`<macros>`) stay as they are.
    fn shown(&self, path: &str) -> String {
        if path.starts_with('<') {
            return path.to_string();
        }
        let absolute = self.compiled_in.join(path);
        match absolute.strip_prefix(&self.shown_from) {
            Ok(relative) => relative.display().to_string(),
            Err(_) => absolute.display().to_string(),
        }
    }

    /// rustc's rendered `message` with each location line's path (` --> src/lib.rs:4:5`, and
    /// `::: ` for the other spans of a message) as [`SourcePaths::shown`] gives it; the rest, the
    /// terminal colours included, as it was.
    pub(crate) fn rewrite(&self, message: &str) -> String {
        let mut out = String::with_capacity(message.len() + 64);
        for line in message.split_inclusive('\n') {
            out.push_str(&self.rewrite_line(line));
        }
        out
    }

    fn rewrite_line(&self, line: &str) -> String {
        let Some(marker) = ["--> ", "::: "]
            .iter()
            .filter_map(|marker| line.find(marker).map(|at| at + marker.len()))
            .min()
        else {
            return line.to_string();
        };
        // The colours end after the marker, before the path.
        let path_start = marker + ansi_prefix_len(&line[marker..]);
        let rest = &line[path_start..];
        let location_len = rest.find(['\x1b', '\n', '\r']).unwrap_or(rest.len());
        let location = &rest[..location_len];
        let mut parts = location.rsplitn(3, ':');
        let (Some(column), Some(row), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            return line.to_string();
        };
        let is_number = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
        if !is_number(column) || !is_number(row) || path.is_empty() {
            return line.to_string();
        }
        format!(
            "{}{}:{row}:{column}{}",
            &line[..path_start],
            self.shown(path),
            &rest[location_len..]
        )
    }
}

/// The length of the terminal colour codes (`ESC [ … m`) that `text` starts with.
fn ansi_prefix_len(text: &str) -> usize {
    let mut len = 0;
    while let Some(code) = text[len..].strip_prefix("\x1b[") {
        match code.find('m') {
            Some(end) => len += 2 + end + 1,
            None => break,
        }
    }
    len
}

/// `text` without its terminal colour codes, for output that is not a terminal's.
pub(crate) fn without_colours(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("\x1b[") {
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let skip = ansi_prefix_len(rest);
        if skip == 0 {
            // An escape that is not a colour code: keep it as text.
            out.push_str("\x1b[");
            rest = &rest[2..];
        } else {
            rest = &rest[skip..];
        }
    }
    out.push_str(rest);
    out
}

/// The root folder of the workspace `manifest` belongs to, as `cargo locate-project` finds it.
fn workspace_root(cargo: &OsStr, manifest: &Path) -> Option<PathBuf> {
    let output = Command::new(cargo)
        .args(["locate-project", "--workspace", "--message-format", "plain"])
        .arg("--manifest-path")
        .arg(manifest)
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let root_manifest = PathBuf::from(String::from_utf8(output.stdout).ok()?.trim());
    root_manifest.parent().map(Path::to_path_buf)
}

/// Cargo's own lines on stderr less its progress (`   Compiling …`, `    Blocking …`, the verb
/// right-aligned in 12 columns): what is left says why the build stopped where rustc did not (a
/// manifest or a dependency that cannot be resolved, for instance) and sums up rustc's messages.
pub(crate) fn cargo_lines(stderr: &str) -> String {
    let is_progress = |line: &str| {
        let verb = line.trim_start().split(' ').next().unwrap_or_default();
        let indent = line.len() - line.trim_start().len();
        indent > 0
            && indent + verb.len() == 12
            && verb.starts_with(|c: char| c.is_ascii_uppercase())
            && verb[1..].bytes().all(|b| b.is_ascii_lowercase())
    };
    let kept: Vec<&str> = stderr.lines().filter(|line| !is_progress(line)).collect();
    let text = kept.join("\n");
    let text = text.trim_matches('\n');
    if text.trim().is_empty() {
        String::new()
    } else {
        format!("{text}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths() -> SourcePaths {
        SourcePaths {
            compiled_in: PathBuf::from("/home/me/project/app/kernels"),
            shown_from: PathBuf::from("/home/me/project"),
        }
    }

    /// As rustc renders it for a terminal (`--message-format=json-diagnostic-rendered-ansi`).
    const RENDERED: &str = "\x1b[1m\x1b[91merror[E0308]\x1b[0m\x1b[1m: mismatched types\x1b[0m\n \
         \x1b[1m\x1b[94m--> \x1b[0msrc/lib.rs:4:5\n  \x1b[1m\x1b[94m|\x1b[0m\n\
         \x1b[1m\x1b[94m4\x1b[0m \x1b[1m\x1b[94m|\x1b[0m     \"not a number\"\n\n";

    #[test]
    fn a_location_is_given_from_the_project_root_and_nothing_else_changes() {
        let rewritten = paths().rewrite(RENDERED);
        assert_eq!(
            rewritten,
            RENDERED.replace("src/lib.rs:4:5", "app/kernels/src/lib.rs:4:5")
        );
        assert!(
            without_colours(&rewritten).contains(" --> app/kernels/src/lib.rs:4:5\n"),
            "{rewritten:?}"
        );
    }

    #[test]
    fn plain_and_secondary_locations_are_rewritten_too() {
        let plain = "error: x\n  --> src/a.rs:1:2\n   |\n  ::: src/b.rs:10:20\n";
        assert_eq!(
            paths().rewrite(plain),
            "error: x\n  --> app/kernels/src/a.rs:1:2\n   |\n  ::: app/kernels/src/b.rs:10:20\n"
        );
    }

    #[test]
    fn files_outside_the_project_and_macros_keep_their_names() {
        let text = " --> /rustc/abc/library/core/src/num.rs:1:1\n --> <macros>:1:1\n";
        assert_eq!(paths().rewrite(text), text);
        // Above the project (a clone of nvshmem-rs beside it): absolute.
        let outside = SourcePaths {
            compiled_in: PathBuf::from("/elsewhere/kernels"),
            shown_from: PathBuf::from("/home/me/project"),
        };
        assert_eq!(
            outside.rewrite(" --> src/lib.rs:3:1\n"),
            " --> /elsewhere/kernels/src/lib.rs:3:1\n"
        );
    }

    #[test]
    fn lines_that_are_not_locations_stay() {
        let text = "note: `-->` in a message: src/lib.rs is not a location\n --> here\n";
        assert_eq!(paths().rewrite(text), text);
    }

    #[test]
    fn colours_are_removed_for_plain_output() {
        assert_eq!(
            without_colours("\x1b[1m\x1b[91merror\x1b[0m: x \x1b[zy"),
            "error: x \x1b[zy"
        );
    }

    #[test]
    fn cargo_progress_is_dropped_and_its_verdict_kept() {
        let stderr = "   Compiling k v0.1.0 (/t/k)\n    Blocking waiting for file lock\n\
                      error: could not compile `k` (lib) due to 1 previous error\n";
        assert_eq!(
            cargo_lines(stderr),
            "error: could not compile `k` (lib) due to 1 previous error\n"
        );
        // Indented lines that are not progress stay.
        let manifest = "error: failed to parse manifest at `/t/k/Cargo.toml`\n\nCaused by:\n  \
                        TOML parse error at line 1\n  Unable to read\n";
        assert_eq!(cargo_lines(manifest), manifest);
        assert_eq!(cargo_lines("   Compiling k\n\n"), "");
    }

    proptest::proptest! {
        /// Any rendered text is rewritten, never a panic; text without a location is unchanged.
        #[test]
        fn any_rendered_text_is_rewritten(text in "(\x1b\\[[0-9;]{0,3}m?|-->|:::| |:|[0-9]|[a-z/<>.]|\n){0,40}") {
            let rewritten = paths().rewrite(&text);
            if !text.contains("--> ") && !text.contains("::: ") {
                proptest::prop_assert_eq!(&rewritten, &text);
            }
            let _ = without_colours(&text);
            let _ = cargo_lines(&text);
        }
    }
}
