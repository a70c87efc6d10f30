//! Records the compiler that built the worker, for the environment every result carries.
fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .unwrap_or_default();
    println!("cargo:rustc-env=CODECBENCH_RUSTC_VERSION={}", version.trim());
    println!("cargo:rustc-env=CODECBENCH_PROFILE={}", std::env::var("PROFILE").unwrap_or_default());
}
