//! Coverage of NVSHMEM's device API: every public function of the device bitcode that the builder
//! links (`lib/libnvshmem_device*.bc`) has a Rust wrapper or an entry, with its reason, in
//! `nvshmem_gpu::NOT_WRAPPED`; every declaration in `nvshmem_gpu::ffi` and every wrapped name exists
//! in the bitcode; and the crate documentation's two tables (C function → Rust item, not wrapped)
//! agree with the code.
//!
//! Wrapped functions are those of the typed tables (`nvshmem_gpu::wrapped_c_functions`) and those the
//! untyped wrappers name in their code (found by reading `gpu/src`, outside `ffi/`, comments and
//! string literals; a `ffi::[<nvshmem $x _NAME $suffix>]` pattern of the scoped macros stands for the
//! thread, warp and block forms).
//!
//! The bitcode of every NVSHMEM release at hand is checked: the project's 3.4.5 and 3.8.0 (both
//! installed by `./x deps`), and what `NVSHMEM_HOME` and Python's `nvidia.nvshmem` point at. The
//! functions a release lacks (`nvshmem_gpu::FIRST_RELEASE`) must be absent from its bitcode, and a
//! `NOT_WRAPPED` entry need only match in one release's (3.4.5's misspelt `put6_signal`, 3.8's
//! additions). `llvm-nm` is the toolchain's (`llvm-tools` component).

mod common;

use common::sources;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("gpu/ has a parent")
        .to_path_buf()
}

/// The NVSHMEM installs whose device bitcode is checked, one per release: the project's two
/// (`./x deps`: 3.4.5 in `.deps/python`, 3.8.0 in `.deps/nvshmem-3.8`), and those `NVSHMEM_HOME`
/// and Python's `nvidia.nvshmem` point at.
fn installs() -> Vec<nvshmem_locate::Install> {
    use nvshmem_locate::{Install, Source};
    let project = [
        nvshmem_locate::PROJECT_LOCAL_DIR,
        nvshmem_locate::NEXT_RELEASE_DIR,
    ];
    let mut roots: Vec<(PathBuf, Source)> = project
        .iter()
        .map(|dir| (workspace_root().join(dir), Source::ProjectLocal))
        .collect();
    for (root, _) in &roots {
        assert!(
            root.join("lib").is_dir(),
            "{} is missing: run `./x deps` (installs NVSHMEM 3.4.5 and 3.8.0 there)",
            root.display()
        );
    }
    if let Some(home) = std::env::var_os("NVSHMEM_HOME") {
        roots.push((PathBuf::from(home), Source::HomeVariable));
    }
    if let Ok(output) = Command::new("python3")
        .args([
            "-c",
            "import nvidia.nvshmem as m; print(list(m.__path__)[0])",
        ])
        .output()
    {
        let path = String::from_utf8_lossy(&output.stdout).trim().to_string();
        if !path.is_empty() {
            roots.push((PathBuf::from(path), Source::PythonPackage));
        }
    }
    let mut releases = BTreeSet::new();
    roots
        .into_iter()
        .filter_map(|(root, source)| Install::at(root, source).ok())
        .filter(|install| releases.insert(install.version().ok()))
        .collect()
}

/// The device bitcode the builder links for sm_90: `libnvshmem_device_sm_90.bc` (NVSHMEM ≥ 3.7) or
/// `libnvshmem_device.bc`.
fn device_bitcode(install: &nvshmem_locate::Install) -> PathBuf {
    let lib = install.lib_dir();
    ["libnvshmem_device_sm_90.bc", "libnvshmem_device.bc"]
        .iter()
        .map(|name| lib.join(name))
        .find(|path| path.is_file())
        .unwrap_or_else(|| {
            panic!(
                "NVSHMEM's device bitcode for sm_90 is not in {}",
                lib.display()
            )
        })
}

/// Each checked release with the functions of its bitcode.
fn bitcodes() -> Vec<(nvshmem_locate::Version, BTreeSet<String>)> {
    installs()
        .iter()
        .map(|install| {
            let release = install
                .version()
                .unwrap_or_else(|error| panic!("{}: {error}", install.root().display()));
            (release, bitcode_functions(&device_bitcode(install)))
        })
        .collect()
}

/// The functions of every checked release's bitcode.
fn all_bitcode_functions() -> BTreeSet<String> {
    bitcodes()
        .into_iter()
        .flat_map(|(_, functions)| functions)
        .collect()
}

/// Whether `function` is one of `nvshmem_gpu::FIRST_RELEASE`'s, added after `release`.
fn newer_than(release: nvshmem_locate::Version, function: &str) -> bool {
    nvshmem_gpu::FIRST_RELEASE
        .iter()
        .filter(|(pattern, _)| matches(pattern, function))
        .any(|(_, since)| {
            let (major, minor) = since
                .split_once('.')
                .expect("a release series is MAJOR.MINOR");
            let since = (major.parse().unwrap(), minor.parse().unwrap());
            (release.major, release.minor) < since
        })
}

fn rustc_output(args: &[&str]) -> String {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(&rustc)
        .args(args)
        .current_dir(workspace_root())
        .output()
        .expect("rustc runs");
    String::from_utf8(output.stdout).expect("rustc prints UTF-8")
}

fn llvm_nm() -> PathBuf {
    let sysroot = rustc_output(&["--print", "sysroot"]);
    let host = rustc_output(&["-vV"])
        .lines()
        .find_map(|line| line.strip_prefix("host: ").map(str::to_string))
        .expect("rustc -vV names the host");
    let nm = Path::new(sysroot.trim())
        .join("lib/rustlib")
        .join(host)
        .join("bin/llvm-nm");
    assert!(
        nm.is_file(),
        "{} is missing: `rustup component add llvm-tools` (rust-toolchain.toml lists it)",
        nm.display()
    );
    nm
}

/// The `nvshmem_*`/`nvshmemx_*` functions the bitcode defines and exports (`T`/`W`).
fn bitcode_functions(bitcode: &Path) -> BTreeSet<String> {
    let output = Command::new(llvm_nm())
        .args(["--defined-only"])
        .arg(bitcode)
        .output()
        .expect("llvm-nm runs");
    assert!(
        output.status.success(),
        "llvm-nm failed on {}",
        bitcode.display()
    );
    let functions: BTreeSet<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace().rev();
            let name = fields.next()?;
            let kind = fields.next()?;
            (matches!(kind, "T" | "W")
                && (name.starts_with("nvshmem_") || name.starts_with("nvshmemx_")))
            .then(|| name.to_string())
        })
        .collect();
    assert!(
        functions.len() > 1000,
        "only {} functions read from {}",
        functions.len(),
        bitcode.display()
    );
    functions
}

/// `text` without comments and string literals' contents (good enough for this crate's sources).
fn code_only(text: &str) -> String {
    let mut code = String::new();
    for line in text.lines() {
        let mut in_string = false;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if in_string {
                match c {
                    '\\' => {
                        chars.next();
                    }
                    '"' => {
                        in_string = false;
                        code.push('"');
                    }
                    _ => {}
                }
            } else if c == '"' {
                in_string = true;
                code.push('"');
            } else if c == '/' && chars.peek() == Some(&'/') {
                break;
            } else {
                code.push(c);
            }
        }
        code.push('\n');
    }
    code
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The functions declared in `nvshmem_gpu::ffi`: the `pub fn` lines of `ffi/generated.rs`.
fn declared() -> BTreeSet<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ffi/generated.rs");
    let text = std::fs::read_to_string(&path).expect("ffi/generated.rs is readable");
    let names: BTreeSet<String> = text
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix("pub fn "))
        .filter_map(|rest| rest.split('(').next())
        .map(str::to_string)
        .collect();
    assert!(
        names.len() > 1000,
        "only {} functions read from {}",
        names.len(),
        path.display()
    );
    names
}

/// The NVSHMEM functions the untyped wrappers name in their code.
fn untyped_wrapped() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for path in sources(&src) {
        if path.starts_with(src.join("ffi")) {
            continue;
        }
        let code = code_only(&std::fs::read_to_string(&path).expect("source is readable"));
        // Plain identifiers.
        let mut rest = code.as_str();
        while let Some(at) = rest.find("nvshmem") {
            let before_ok = rest[..at].chars().last().is_none_or(|c| !is_ident_char(c));
            let ident: String = rest[at..]
                .chars()
                .take_while(|&c| is_ident_char(c))
                .collect();
            let after = &rest[at + ident.len()..];
            if before_ok
                && (ident.starts_with("nvshmem_") || ident.starts_with("nvshmemx_"))
                && !ident.ends_with('_')
                && !after.starts_with('!')
                && !after.starts_with("::")
            {
                names.insert(ident.clone());
            }
            rest = &rest[at + ident.len().max(1)..];
        }
        // Scoped paste patterns: `[<nvshmem $x _NAME $suffix>]`.
        let mut rest = code.as_str();
        while let Some(at) = rest.find("[<nvshmem $x _") {
            let tail = &rest[at + "[<nvshmem $x _".len()..];
            let name: String = tail.chars().take_while(|&c| is_ident_char(c)).collect();
            assert!(
                tail[name.len()..].starts_with(" $suffix>]"),
                "unrecognised paste pattern in {}",
                path.display()
            );
            names.insert(format!("nvshmem_{name}"));
            names.insert(format!("nvshmemx_{name}_warp"));
            names.insert(format!("nvshmemx_{name}_block"));
            rest = tail;
        }
    }
    names
}

/// Expands `{a,b}` alternatives (nested, empty alternatives allowed) into plain `*` globs.
fn expand_braces(pattern: &str) -> Vec<String> {
    let Some(open) = pattern.find('{') else {
        return vec![pattern.to_string()];
    };
    let mut depth = 0;
    let mut close = open;
    for (i, c) in pattern[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    close = open + i;
                    break;
                }
            }
            _ => {}
        }
    }
    let (head, inner, tail) = (
        &pattern[..open],
        &pattern[open + 1..close],
        &pattern[close + 1..],
    );
    let mut alternatives = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                alternatives.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    alternatives.push(&inner[start..]);
    alternatives
        .into_iter()
        .flat_map(|alternative| expand_braces(&format!("{head}{alternative}{tail}")))
        .collect()
}

/// `*` matches any text.
fn glob_matches(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((prefix, rest)) => {
            name.starts_with(prefix)
                && (prefix.len()..=name.len())
                    .any(|i| name.is_char_boundary(i) && glob_matches(rest, &name[i..]))
        }
    }
}

fn matches(pattern: &str, name: &str) -> bool {
    expand_braces(pattern)
        .iter()
        .any(|glob| glob_matches(glob, name))
}

/// `lib.rs`'s crate documentation.
fn crate_docs() -> String {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .expect("lib.rs is readable");
    lib.lines()
        .filter_map(|line| line.strip_prefix("//!"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The C-function patterns of the documentation's "C function → Rust item" table: `<T>` and `<op>`
/// become `*`, `[a,b]` an optional `{a,b,}`.
fn documented_patterns() -> Vec<String> {
    let docs = crate_docs();
    let table = docs
        .split("# C function → Rust item")
        .nth(1)
        .and_then(|rest| rest.split("\n #").next())
        .expect("the crate docs have a `C function → Rust item` section");
    let mut patterns = Vec::new();
    for row in table
        .lines()
        .filter(|line| line.trim_start().starts_with("| `"))
    {
        let c_column = row
            .trim_start()
            .trim_start_matches('|')
            .split('|')
            .next()
            .unwrap();
        for (i, quoted) in c_column.split('`').enumerate() {
            if i % 2 == 1 {
                let pattern = quoted
                    .replace("<T>", "*")
                    .replace("<op>", "*")
                    .replace('[', "{")
                    .replace(']', ",}");
                patterns.push(pattern);
            }
        }
    }
    assert!(patterns.len() > 20, "the C → Rust table looks empty");
    patterns
}

#[test]
fn every_device_function_is_wrapped_or_excluded_with_a_reason() {
    let mut all_wrapped: BTreeSet<String> = nvshmem_gpu::wrapped_c_functions()
        .map(str::to_string)
        .collect();
    all_wrapped.extend(untyped_wrapped());
    let all_declared = declared();
    for (pattern, _) in nvshmem_gpu::FIRST_RELEASE {
        assert!(
            all_wrapped
                .iter()
                .any(|function| matches(pattern, function)),
            "FIRST_RELEASE entry {pattern} matches no wrapped function: remove it"
        );
    }
    let bitcodes = bitcodes();
    assert!(
        bitcodes.len() >= 2,
        "only one NVSHMEM release found: run `./x deps`"
    );
    for (release, bitcode) in bitcodes {
        check_release(release, &bitcode, &all_wrapped, &all_declared);
    }
}

/// The coverage checks against one release's bitcode: the functions that release lacks
/// (`FIRST_RELEASE`) must be absent from it and are left out of the other checks.
fn check_release(
    release: nvshmem_locate::Version,
    bitcode: &BTreeSet<String>,
    all_wrapped: &BTreeSet<String>,
    all_declared: &BTreeSet<String>,
) {
    let newer: BTreeSet<&String> = all_wrapped
        .union(all_declared)
        .filter(|function| newer_than(release, function))
        .collect();
    let newer_present: Vec<_> = newer
        .iter()
        .filter(|function| bitcode.contains(**function))
        .collect();
    assert!(
        newer_present.is_empty(),
        "NVSHMEM {release}'s bitcode has {newer_present:?}, which nvshmem_gpu::FIRST_RELEASE says \
         came later: correct that table (and the feature gating the wrappers)"
    );
    let wrapped: BTreeSet<String> = all_wrapped
        .iter()
        .filter(|function| !newer.contains(function))
        .cloned()
        .collect();
    let declared: BTreeSet<String> = all_declared
        .iter()
        .filter(|function| !newer.contains(function))
        .cloned()
        .collect();

    let not_in_bitcode: Vec<_> = declared.difference(bitcode).collect();
    assert!(
        not_in_bitcode.is_empty(),
        "NVSHMEM {release}: declared in ffi but not in the bitcode: {not_in_bitcode:?}"
    );
    let wrapped_not_in_bitcode: Vec<_> = wrapped.difference(bitcode).collect();
    assert!(
        wrapped_not_in_bitcode.is_empty(),
        "NVSHMEM {release}: wrapped but not in the bitcode: {wrapped_not_in_bitcode:?}"
    );
    let wrapped_not_declared: Vec<_> = wrapped.difference(&declared).collect();
    assert!(
        wrapped_not_declared.is_empty(),
        "wrapped but not declared in ffi: {wrapped_not_declared:?}"
    );

    let (alias_pattern, _) = nvshmem_gpu::NOT_WRAPPED
        .iter()
        .find(|(pattern, _)| pattern.contains("longlong"))
        .expect("the C alias types have an entry");
    let mut uncovered = Vec::new();
    let mut alias_not_declared = Vec::new();
    for function in bitcode {
        if wrapped.contains(function) {
            continue;
        }
        match nvshmem_gpu::NOT_WRAPPED
            .iter()
            .find(|(pattern, _)| matches(pattern, function))
        {
            None => uncovered.push(function),
            Some((pattern, _)) if pattern == alias_pattern && !declared.contains(function) => {
                alias_not_declared.push(function)
            }
            Some(_) => {}
        }
    }
    assert!(
        uncovered.is_empty(),
        "NVSHMEM {release}: {} device functions have neither a wrapper nor an entry in \
         NOT_WRAPPED: {uncovered:?}",
        uncovered.len()
    );
    assert!(
        alias_not_declared.is_empty(),
        "C-alias-type functions must at least be declared in ffi: {alias_not_declared:?}"
    );
    println!(
        "NVSHMEM {release}: {} device functions: {} wrapped, {} declared in ffi, the rest excluded",
        bitcode.len(),
        wrapped.len(),
        declared.len()
    );
}

#[test]
fn exclusions_are_live_documented_and_do_not_hide_wrapped_functions() {
    let bitcode = all_bitcode_functions();
    let wrapped: BTreeSet<String> = nvshmem_gpu::wrapped_c_functions()
        .map(str::to_string)
        .chain(untyped_wrapped())
        .collect();
    let docs = crate_docs();
    for (pattern, why) in nvshmem_gpu::NOT_WRAPPED {
        assert!(!why.is_empty(), "{pattern} needs a reason");
        assert!(
            bitcode.iter().any(|function| matches(pattern, function)),
            "NOT_WRAPPED entry {pattern} matches nothing in the bitcode: remove it"
        );
        assert!(
            docs.contains(&format!("| `{pattern}` |")),
            "the crate docs' `Not wrapped` table lacks {pattern}"
        );
        if !pattern.contains("longlong") {
            let hidden: Vec<_> = wrapped
                .iter()
                .filter(|function| matches(pattern, function))
                .collect();
            assert!(
                hidden.is_empty(),
                "{pattern} excludes wrapped functions: {hidden:?}"
            );
        }
    }
}

#[test]
fn the_documented_table_covers_every_wrapped_function() {
    let patterns = documented_patterns();
    let wrapped: BTreeSet<String> = nvshmem_gpu::wrapped_c_functions()
        .map(str::to_string)
        .chain(untyped_wrapped())
        .collect();
    let undocumented: Vec<_> = wrapped
        .iter()
        .filter(|function| !patterns.iter().any(|pattern| matches(pattern, function)))
        .collect();
    assert!(
        undocumented.is_empty(),
        "wrapped functions missing from the crate docs' `C function → Rust item` table: \
         {undocumented:?}"
    );
    let bitcode = all_bitcode_functions();
    for pattern in &patterns {
        assert!(
            bitcode.iter().any(|function| matches(pattern, function)),
            "the docs table's {pattern} matches no device function"
        );
    }
}

#[test]
fn patterns_expand_and_match_as_documented() {
    assert_eq!(expand_braces("a{b,c}d"), ["abd", "acd"]);
    assert_eq!(expand_braces("x{_nbi,}"), ["x_nbi", "x"]);
    assert!(matches(
        "nvshmem*_{half,bfloat16}_*",
        "nvshmemx_half_put_warp"
    ));
    assert!(!matches("nvshmem*_{half,bfloat16}_*", "nvshmem_float_p"));
    assert!(matches(
        "nvshmem*_{put,get,iput,iget}{8,16,32,64,128}*",
        "nvshmemx_iget128_block"
    ));
    assert!(!matches(
        "nvshmem*_{put,get,iput,iget}{8,16,32,64,128}*",
        "nvshmem_uint8_put"
    ));
    assert_eq!(code_only("a // nvshmem_x\n\"nvshmem_y\" b"), "a \n\"\" b\n");
}
