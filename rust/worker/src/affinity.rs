//! Lanes (docs/DESIGN.md "Lanes"): a task's trial process runs on its lane's CPUs
//! (`Task.cpus`), and reports the CPUs it was allowed on as it read them itself
//! (`ReportResultRequest.trial_cpus`).
use std::os::unix::process::CommandExt;
use std::process::Command;

/// Starts `command`'s process pinned to `cpus` (nothing when empty: the OS places it). The
/// affinity is set between fork and exec, so the trial runs on its lane from its first
/// instruction and every thread it starts inherits it.
pub fn pin(command: &mut Command, cpus: &[u32]) -> Result<(), String> {
    if cpus.is_empty() {
        return Ok(());
    }
    // SAFETY: a zeroed cpu_set_t is the empty set; CPU_SET only writes inside it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let capacity = 8 * std::mem::size_of::<libc::cpu_set_t>();
    for &cpu in cpus {
        if cpu as usize >= capacity {
            return Err(format!("the task's lane names CPU {cpu}, past the {capacity} a CPU set holds"));
        }
        unsafe { libc::CPU_SET(cpu as usize, &mut set) };
    }
    // SAFETY: sched_setaffinity is a plain system call (async-signal-safe), the only thing done
    // in the child before exec; `set` was built before the fork.
    unsafe {
        command.pre_exec(move || {
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    Ok(())
}

/// The CPUs this process may run on, as Linux lists them (`Cpus_allowed_list`, e.g. "0-1");
/// empty where the OS does not say.
pub fn own_cpus() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:").map(|v| v.trim().to_string())))
        .unwrap_or_default()
}
