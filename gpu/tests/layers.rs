//! The crate's layering, read from its sources: `ffi` (NVSHMEM's C declarations) uses nothing of
//! the typed layer, its declarations are what `gpu/generate-ffi.py` writes, and the top-level
//! modules of `gpu/src` import each other without a cycle.
//!
//! A module's imports are the `crate::NAME` paths in its code (comments left out), `NAME` being a
//! module, an item that `lib.rs` re-exports from one, or a macro that one defines.

mod common;

use common::sources;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// `text` without `//` comments (the sources have no `//` inside string literals that matter here).
fn code(text: &str) -> String {
    text.lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

fn identifier(text: &str) -> String {
    text.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// The first path segments after each `crate::` in `code`, groups (`crate::{a, b::c}`) included.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let (mut depth, mut start) = (0, 0);
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        names.insert(identifier(group[start..].trim_start()));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        names.insert(identifier(group[start..].trim_start()));
                        start = i + 1;
                    }
                    _ => {}
                }
            }
        } else {
            names.insert(identifier(rest));
        }
    }
    names.remove("");
    names
}

/// The top-level module a source file belongs to (`peer` for `peer/copy.rs`).
fn module_of(path: &Path) -> String {
    let relative = path.strip_prefix(src()).expect("a file under gpu/src");
    let first = relative.components().next().expect("a path");
    let first = first.as_os_str().to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// Every top-level module (but the crate root) and the modules it imports.
fn import_graph() -> BTreeMap<String, BTreeSet<String>> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).expect("lib.rs is readable");
    let lib = code(&lib);
    let files: Vec<PathBuf> = sources(&src())
        .into_iter()
        .filter(|path| !path.ends_with("lib.rs"))
        .collect();
    let modules: BTreeSet<String> = files.iter().map(|path| module_of(path)).collect();
    // What a name other than a module's stands for: lib.rs's re-exports and macro definitions.
    let mut owner: BTreeMap<String, String> = BTreeMap::new();
    for line in lib
        .lines()
        .filter(|line| line.trim_start().starts_with("pub use "))
    {
        let path = line.trim_start().trim_start_matches("pub use ");
        let module = identifier(path);
        if modules.contains(&module) {
            let items = path[module.len()..].trim_start_matches("::");
            for item in items.trim_matches(|c| "{};".contains(c)).split(',') {
                owner.insert(identifier(item.trim()), module.clone());
            }
        }
    }
    let mut texts = Vec::new();
    for path in &files {
        let text = code(&std::fs::read_to_string(path).expect("source is readable"));
        for (at, _) in text.match_indices("macro_rules! ") {
            let name = identifier(&text[at + "macro_rules! ".len()..]);
            owner.insert(name, module_of(path));
        }
        texts.push((module_of(path), text));
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = modules
        .iter()
        .map(|m| (m.clone(), BTreeSet::new()))
        .collect();
    for (module, text) in texts {
        for name in crate_paths(&text) {
            let target = if modules.contains(&name) {
                Some(name)
            } else {
                owner.get(&name).cloned()
            };
            if let Some(target) = target.filter(|target| *target != module) {
                graph.get_mut(&module).unwrap().insert(target);
            }
        }
    }
    graph
}

/// The modules that `start` reaches through the graph, itself included only through a cycle.
fn reached(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo: Vec<&String> = graph[start].iter().collect();
    while let Some(module) = todo.pop() {
        if seen.insert(module.clone()) {
            todo.extend(graph[module].iter());
        }
    }
    seen
}

#[test]
fn the_top_level_modules_import_each_other_without_a_cycle() {
    let graph = import_graph();
    assert!(graph.len() > 10, "only {} modules read", graph.len());
    let cycles: Vec<String> = graph
        .keys()
        .filter(|module| reached(&graph, module).contains(*module))
        .map(|module| {
            let back: Vec<&String> = graph[module]
                .iter()
                .filter(|target| reached(&graph, target).contains(module))
                .collect();
            format!("{module} -> {back:?} -> … -> {module}")
        })
        .collect();
    assert!(
        cycles.is_empty(),
        "import cycles among gpu/src's modules (each module imports only from layers below it, \
         see the crate documentation's Layout):\n{}",
        cycles.join("\n")
    );
}

#[test]
fn ffi_uses_nothing_of_the_typed_layer() {
    let graph = import_graph();
    assert!(
        graph["ffi"].is_empty(),
        "ffi imports {:?}: NVSHMEM's declarations must use C's types and constants only",
        graph["ffi"]
    );
    for path in sources(&src().join("ffi")) {
        let text = code(&std::fs::read_to_string(&path).expect("source is readable"));
        for line in text
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("use "))
        {
            assert!(
                line.starts_with("use core::") || line.starts_with("use super::"),
                "{}: `{line}`: ffi may use only core and itself",
                path.display()
            );
        }
    }
}

#[test]
fn the_generated_declarations_are_the_scripts() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("generate-ffi.py");
    let output = Command::new("python3")
        .arg(&script)
        .arg("--check")
        .output()
        .expect("python3 runs (it generates gpu/src/ffi/generated.rs)");
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn crate_paths_reads_single_and_grouped_imports() {
    let paths =
        crate_paths("use crate::{Team, ffi, peer::{Scope, Way}};\nlet x = crate::pe::my_pe();");
    assert_eq!(
        paths,
        ["Team", "ffi", "pe", "peer"]
            .map(String::from)
            .into_iter()
            .collect()
    );
}
