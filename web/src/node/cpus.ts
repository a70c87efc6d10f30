import { readFileSync } from "node:fs";

// A lane's CPUs (Task.cpus) and Linux's Cpus_allowed_list ("0-1,3") as sets of CPU numbers.

/** The CPUs this process may run on, from /proc/self/status; "" where there is none. */
export function allowedCpus(status = "/proc/self/status"): string {
  try {
    return /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync(status, "utf8"))?.[1] ?? "";
  } catch {
    return "";
  }
}

/** "0-2,5" → [0, 1, 2, 5]. */
export function parseCpuList(list: string): number[] {
  const cpus = new Set<number>();
  for (const part of list.split(",").filter(Boolean)) {
    const [from, to = from] = part.split("-").map(Number);
    if (!Number.isInteger(from) || !Number.isInteger(to)) throw new Error(`not a CPU list: ${JSON.stringify(list)}`);
    for (let cpu = from!; cpu <= to!; cpu++) cpus.add(cpu);
  }
  return [...cpus].sort((a, b) => a - b);
}

/** Null when the process's allowed list is exactly the lane's CPUs, else why not. */
export function laneMismatch(allowed: string, lane: readonly number[]): string | null {
  const got = parseCpuList(allowed).join(",");
  const want = [...new Set(lane)].sort((a, b) => a - b).join(",");
  return got === want ? null : `the trial process may run on CPUs ${allowed || "(unknown)"}, not only on its lane's ${want}`;
}
