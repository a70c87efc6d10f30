//! Control's own resident memory, from /proc/self/status (Linux; std exposes none of it), so a run
//! can say how much RAM control needed while its payloads passed through: the peak (VmHWM) is
//! reset when a run starts by writing 5 to /proc/self/clear_refs (proc(5)).

fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line[field.len()..].trim().trim_end_matches("kB").trim().parse().ok()
}

/// Resets the peak to the current resident set and returns it, in bytes (0 where unknown).
pub fn reset_peak() -> u64 {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    status_kib("VmRSS:").map_or(0, |k| k * 1024)
}

/// The peak resident set since the last reset (or since start), in bytes (0 where unknown).
pub fn peak() -> u64 {
    status_kib("VmHWM:").map_or(0, |k| k * 1024)
}

/// Hands the allocator's free pages back to the system. glibc keeps what a finished run freed (its
/// planned tasks, summaries and events: tens of MiB for a 10,000-task run) mapped in its heap and
/// per-thread arenas; the next run reuses it, but from outside it reads as growth, and a long-lived
/// control would keep its largest run's footprint forever. malloc_trim(0) releases the free pages
/// of every arena (glibc ≥ 2.8). Called when a run ends, outside any timed region.
pub fn release_free() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks and trims the allocator's own free lists.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    /// The peak is the process's, and the other tests of this binary allocate, free and reset it
    /// concurrently (every started run resets it): the check runs alone, in a process of its own.
    #[test]
    fn the_peak_follows_a_large_allocation_and_resets() {
        run_alone("memory::tests::alone");
    }

    /// Runs the ignored test `name` alone, in a child process of this test binary.
    fn run_alone(name: &str) {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", name, "--ignored", "--test-threads=1"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && text.contains("1 passed"), "{text}{}", String::from_utf8_lossy(&out.stderr));
    }

    #[test]
    fn freed_memory_goes_back_to_the_system() {
        run_alone("memory::tests::release_alone");
    }

    fn rss() -> u64 {
        super::status_kib("VmRSS:").unwrap() << 10
    }

    #[test]
    #[ignore = "run by freed_memory_goes_back_to_the_system in a process of its own"]
    fn release_alone() {
        // 80 MB in 4 KB blocks below the mmap threshold, every 16th kept: the heap cannot shrink
        // from its top, so only trimming returns the free pages in between.
        let mut blocks: Vec<Box<[u8; 4000]>> = (0..20_000).map(|i| Box::new([i as u8; 4000])).collect();
        let full = rss();
        let mut i = 0;
        blocks.retain(|_| { i += 1; i % 16 == 0 });
        std::hint::black_box(&blocks);
        let freed = rss();
        super::release_free();
        let trimmed = rss();
        assert!(freed > full - (16 << 20), "glibc kept the freed blocks mapped: {full} -> {freed} bytes (else this test shows nothing)");
        assert!(trimmed < freed - (48 << 20), "release_free returned too little: {freed} -> {trimmed} bytes");
    }

    #[test]
    #[ignore = "run by the_peak_follows_a_large_allocation_and_resets in a process of its own"]
    fn alone() {
        let start = super::reset_peak();
        assert!(start > 0, "VmRSS is readable here");
        let big = vec![1u8; 64 << 20];
        std::hint::black_box(&big);
        let grown = super::peak() - start;
        assert!(grown >= 60 << 20, "the peak grew by {grown} bytes for a 64 MiB buffer");
        drop(big);
        let after = super::reset_peak();
        assert!(super::peak() < after + (8 << 20), "the reset brings the peak back to the current level");
    }
}
