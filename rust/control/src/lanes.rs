//! Lanes: how many tasks control runs at once, and the CPUs each one's trial process is pinned
//! to (docs/DESIGN.md "Lanes"). One lane is today's protocol: one trial at a time, machine-wide,
//! placed by the OS. Several lanes split the CPUs control may use into equal, disjoint sets, so
//! that concurrent trials never share a core; CPUs left over by the split are left to control,
//! the workers and their drivers.

use anyhow::{bail, Context, Result};

/// The machine's default: one lane per two CPUs (a trial's process has a core for its own
/// thread and one for its runtime's helpers: JIT, GC, a browser's other processes), at least one.
pub fn default_count(cpus: usize) -> usize {
    (cpus / 2).max(1)
}

/// The CPUs of each of `count` lanes, from the CPUs this process may run on. One lane gets no
/// set: its trials are not pinned, as before lanes existed.
pub fn split(allowed: &[u32], count: usize) -> Result<Vec<Vec<u32>>> {
    if count == 0 {
        bail!("--lanes must be at least 1");
    }
    if count == 1 {
        return Ok(vec![vec![]]);
    }
    if count > allowed.len() {
        bail!("--lanes {count} needs at least {count} CPUs, and this process may use {} ({})", allowed.len(), format_list(allowed));
    }
    let per = allowed.len() / count;
    Ok(allowed.chunks(per).take(count).map(|c| c.to_vec()).collect())
}

/// The CPUs this process may run on (Linux `Cpus_allowed_list` in /proc/self/status).
pub fn allowed_cpus() -> Result<Vec<u32>> {
    let status = std::fs::read_to_string("/proc/self/status").context("reading /proc/self/status for the CPUs control may use")?;
    let list = status.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).context("/proc/self/status has no Cpus_allowed_list")?;
    parse_list(list.trim())
}

/// Parses a Linux CPU list such as "0-3,8,10-11".
pub fn parse_list(list: &str) -> Result<Vec<u32>> {
    let mut cpus = vec![];
    for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (lo, hi) = part.split_once('-').unwrap_or((part, part));
        let (lo, hi): (u32, u32) = (lo.parse().with_context(|| format!("CPU list {list:?}"))?, hi.parse().with_context(|| format!("CPU list {list:?}"))?);
        if hi < lo {
            bail!("CPU list {list:?}: range {part} runs backwards");
        }
        cpus.extend(lo..=hi);
    }
    Ok(cpus)
}

/// The Linux list form of `cpus` ("0-3,8").
pub fn format_list(cpus: &[u32]) -> String {
    let mut out: Vec<String> = vec![];
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        out.push(if i == j { cpus[i].to_string() } else { format!("{}-{}", cpus[i], cpus[j]) });
        i = j + 1;
    }
    out.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_lane_pins_nothing_and_several_split_the_cpus_evenly() {
        assert_eq!(split(&[0, 1], 1).unwrap(), vec![Vec::<u32>::new()]);
        assert_eq!(split(&[0, 1], 2).unwrap(), vec![vec![0], vec![1]]);
        // Five CPUs, two lanes: two each, the fifth left to control and the workers.
        assert_eq!(split(&[0, 1, 2, 3, 4], 2).unwrap(), vec![vec![0, 1], vec![2, 3]]);
        assert!(split(&[0, 1], 3).unwrap_err().to_string().contains("needs at least 3 CPUs"));
        assert!(split(&[0], 0).is_err());
    }

    #[test]
    fn defaults_to_one_lane_per_two_cpus() {
        assert_eq!(default_count(1), 1);
        assert_eq!(default_count(2), 1);
        assert_eq!(default_count(8), 4);
    }

    #[test]
    fn cpu_lists_round_trip() {
        assert_eq!(parse_list("0-3,8,10-11").unwrap(), vec![0, 1, 2, 3, 8, 10, 11]);
        assert_eq!(format_list(&[0, 1, 2, 3, 8, 10, 11]), "0-3,8,10-11");
        assert!(parse_list("3-1").is_err());
        assert!(parse_list("x").is_err());
        assert_eq!(allowed_cpus().unwrap().len(), std::thread::available_parallelism().unwrap().get().min(allowed_cpus().unwrap().len()));
    }
}
