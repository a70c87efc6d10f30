//! What ran (docs/DESIGN.md, rule 8): language, compiler, build profile, CPU, host.
use codecbench_proto::v1::Environment;
use std::collections::HashMap;

pub fn current() -> Environment {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu_model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name").and_then(|r| r.split_once(':')).map(|(_, v)| v.trim().to_string()))
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let rustc = env!("CODECBENCH_RUSTC_VERSION");
    let mut details = HashMap::new();
    details.insert("debug_assertions".into(), cfg!(debug_assertions).to_string());
    details.insert("trial_isolation".into(), "a fresh `codecbench-worker trial` process per trial".into());
    details.insert("target".into(), format!("{}-{}", std::env::consts::ARCH, std::env::consts::OS));
    Environment {
        language: "rust".into(),
        runtime: "rustc".into(),
        runtime_version: rustc.split_whitespace().nth(1).unwrap_or(rustc).into(),
        build_profile: env!("CODECBENCH_PROFILE").into(),
        cpu_model,
        cores: std::thread::available_parallelism().map(|n| n.get() as u32).unwrap_or(1),
        hostname: std::fs::read_to_string("/proc/sys/kernel/hostname").map(|h| h.trim().to_string()).unwrap_or_default(),
        os: std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|r| format!("{} {}", std::env::consts::OS, r.trim()))
            .unwrap_or_else(|_| std::env::consts::OS.into()),
        details,
    }
}
