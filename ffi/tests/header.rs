//! `include/ferrite.h` is generated from this crate by the pinned cbindgen and committed.
//! These tests fail when the committed header differs from what the code generates
//! (`FERRITE_BLESS=1` rewrites it), and when it does not compile on its own as strict C99
//! and C++11. The version macros (`FERRITE_VERSION_MAJOR`, ...) come from the crate version
//! here, so they are generated like the rest.

use std::path::PathBuf;
use std::process::Command;

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn header_path() -> PathBuf {
    crate_dir().join("../include/ferrite.h")
}

/// The version macros, from this crate's version (the one `ferrite_version()` returns), so the
/// header is regenerated (and this test fails until it is) whenever the version changes.
fn version_macros() -> String {
    format!(
        "/* The version of Ferrite this header was generated from (the crate version).\n \
         * ferrite_version() gives the loaded library's: they agree for a matching pair. */\n\
         #define FERRITE_VERSION_MAJOR {}\n#define FERRITE_VERSION_MINOR {}\n#define FERRITE_VERSION_PATCH {}\n\
         #define FERRITE_VERSION \"{}\"\n",
        env!("CARGO_PKG_VERSION_MAJOR"),
        env!("CARGO_PKG_VERSION_MINOR"),
        env!("CARGO_PKG_VERSION_PATCH"),
        env!("CARGO_PKG_VERSION"),
    )
}

fn generate() -> String {
    let mut config = cbindgen::Config::from_file(crate_dir().join("cbindgen.toml")).expect("ffi/cbindgen.toml parses");
    config.after_includes = Some(version_macros());
    let bindings = cbindgen::Builder::new()
        .with_crate(crate_dir())
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header");
    let mut out = Vec::new();
    bindings.write(&mut out);
    String::from_utf8(out).expect("the header is UTF-8")
}

#[test]
fn committed_header_matches_the_code() {
    let generated = generate();
    let path = header_path();
    if std::env::var_os("FERRITE_BLESS").is_some_and(|v| v == "1") {
        // Write then rename, so the standalone-compile tests running alongside never read a
        // half-written header.
        let tmp = path.with_extension("h.tmp");
        std::fs::write(&tmp, &generated).expect("write include/ferrite.h.tmp");
        std::fs::rename(&tmp, &path).expect("replace include/ferrite.h");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != generated {
        let first = committed.lines().zip(generated.lines()).position(|(a, b)| a != b);
        panic!(
            "include/ferrite.h is stale (first differing line: {}); regenerate it with \
             FERRITE_BLESS=1 cargo test -p ferrite-ffi --test header",
            first.map_or_else(|| "at the end".to_owned(), |i| (i + 1).to_string())
        );
    }
}

/// Compile a translation unit that includes only the header (and asks for the testing
/// declarations, which the C tests use), with `compiler` and `args`.
fn compile_alone(compiler: &str, args: &[&str], extension: &str) {
    let dir = std::env::temp_dir().join(format!("ferrite-header-{}-{compiler}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let source = dir.join(format!("probe.{extension}"));
    std::fs::write(
        &source,
        "#define FERRITE_TESTING 1\n#include \"ferrite.h\"\nint ferrite_probe(void);\n\
         int ferrite_probe(void) { return (int)FERRITE_RESULT_OK; }\n",
    )
    .expect("write probe source");
    let status = Command::new(compiler)
        .args(args)
        .arg("-I")
        .arg(crate_dir().join("../include"))
        .arg("-c")
        .arg(&source)
        .arg("-o")
        .arg(dir.join("probe.o"))
        .status();
    let _ = std::fs::remove_dir_all(&dir);
    let status = status.unwrap_or_else(|e| panic!("cannot run {compiler}: {e}"));
    assert!(status.success(), "{compiler} {args:?} rejected include/ferrite.h");
}

#[test]
fn header_compiles_alone_as_c99() {
    compile_alone("gcc", &["-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror"], "c");
}

#[test]
fn header_compiles_alone_as_cpp11() {
    compile_alone("g++", &["-std=c++11", "-pedantic", "-Wall", "-Wextra", "-Werror"], "cpp");
}
