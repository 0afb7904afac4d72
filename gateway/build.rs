//! Builds the web app (`web/`) so that `cargo run -p gateway` serves it with no other step.
//!
//! The server embeds `web/dist` (rust-embed; read from disk in debug builds). This script
//! rebuilds it with npm when its inputs changed: cargo reruns the script only then, and a
//! fingerprint of the inputs stored in `web/dist/.fingerprint` makes a second target
//! directory or profile reuse the same build. A file lock keeps two cargo processes from
//! running npm in `web/` at once.
//!
//! - `TRADING_WEB_BUILD=0` skips npm (the existing `web/dist` is used as it is).
//! - Without npm on the machine, an existing build is used; if there is none, a page that
//!   says how to build the app is embedded instead, and cargo prints a warning.

use std::collections::hash_map::DefaultHasher;
use std::fs::{self, File};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What the web build reads: any change here rebuilds it.
const INPUTS: [&str; 8] = [
    "src",
    "scripts",
    "index.html",
    "package.json",
    "package-lock.json",
    "vite.config.ts",
    "tsconfig.json",
    "../locales",
];

const PLACEHOLDER: &str = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Web app not built</title></head><body style=\"font-family:sans-serif;background:#0b0e14;color:#e6e8ee;padding:2em\"><h1>The web app was not built</h1><p>Install Node.js 20 or newer with npm, then build the server again (<code>cargo run --release -p gateway</code>). The API is available under <code>/api</code>.</p></body></html>";

fn main() {
    let manifest =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let web = manifest.join("../web");
    for input in INPUTS {
        println!("cargo:rerun-if-changed={}", web.join(input).display());
    }
    println!("cargo:rerun-if-env-changed=TRADING_WEB_BUILD");
    let dist = web.join("dist");

    if std::env::var("TRADING_WEB_BUILD").as_deref() == Ok("0") {
        ensure_some_build(&dist, "TRADING_WEB_BUILD=0");
        return;
    }

    fs::create_dir_all(&dist).expect("create web/dist");
    let lock = File::create(web.join(".build.lock")).expect("create web/.build.lock");
    lock.lock().expect("lock web/.build.lock");

    let fingerprint = format!("{:016x}", fingerprint(&web));
    let stamp = dist.join(".fingerprint");
    if dist.join("index.html").exists()
        && fs::read_to_string(&stamp).ok().as_deref() == Some(&fingerprint)
    {
        return;
    }
    if Command::new("npm").arg("--version").output().is_err() {
        ensure_some_build(&dist, "npm is not installed");
        return;
    }
    if needs_install(&web) {
        run(&web, &["ci", "--no-audit", "--no-fund", "--loglevel=error"]);
    }
    run(&web, &["run", "build"]);
    fs::write(&stamp, fingerprint).expect("write web/dist/.fingerprint");
}

/// Uses the build that is there, or embeds a page that says how to make one.
fn ensure_some_build(dist: &Path, why: &str) {
    if dist.join("index.html").exists() {
        println!("cargo:warning=web app not rebuilt ({why}): serving the existing web/dist");
        return;
    }
    fs::create_dir_all(dist).expect("create web/dist");
    fs::write(dist.join("index.html"), PLACEHOLDER).expect("write web/dist/index.html");
    println!("cargo:warning=web app not built ({why}): the server will show how to build it");
}

/// `npm ci` is needed when node_modules is missing or older than the lock file.
fn needs_install(web: &Path) -> bool {
    let modified = |p: PathBuf| fs::metadata(p).and_then(|m| m.modified()).ok();
    match (
        modified(web.join("node_modules/.package-lock.json")),
        modified(web.join("package-lock.json")),
    ) {
        (Some(installed), Some(lock)) => installed < lock,
        _ => true,
    }
}

fn run(web: &Path, args: &[&str]) {
    let output = Command::new("npm")
        .args(args)
        .current_dir(web)
        .output()
        .unwrap_or_else(|e| panic!("could not run npm {}: {e}", args.join(" ")));
    if !output.status.success() {
        panic!(
            "npm {} failed in web/:\n{}\n{}",
            args.join(" "),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// A hash of every input file's path and contents.
fn fingerprint(web: &Path) -> u64 {
    let mut files = Vec::new();
    for input in INPUTS {
        collect(&web.join(input), &mut files);
    }
    files.sort();
    let mut hasher = DefaultHasher::new();
    for file in files {
        file.hash(&mut hasher);
        fs::read(&file).unwrap_or_default().hash(&mut hasher);
    }
    hasher.finish()
}

fn collect(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        for entry in fs::read_dir(path).into_iter().flatten().flatten() {
            collect(&entry.path(), out);
        }
    } else if path.is_file() {
        out.push(path.to_path_buf());
    }
}
