package main

// Lanes (docs/DESIGN.md "Lanes"): a task's trial process runs on its lane's CPUs (Task.cpus) and
// reports the CPUs it was allowed on, as it read them itself.

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"
)

// startPinned starts cmd with its CPU affinity set to cpus (nothing when empty). Go's os/exec has
// no pre-exec hook, so the calling OS thread is pinned while it forks (a child inherits the
// forking thread's mask, from its first instruction, and every thread it starts inherits it),
// then the thread's own mask is restored.
func startPinned(cmd *exec.Cmd, cpus []uint32) error {
	if len(cpus) == 0 {
		return cmd.Start()
	}
	var set unix.CPUSet
	for _, c := range cpus {
		if int(c) >= len(set)*64 {
			return fmt.Errorf("the task's lane names CPU %d, past the %d a CPU set holds", c, len(set)*64)
		}
		set.Set(int(c))
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return fmt.Errorf("reading this thread's CPU affinity: %w", err)
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("pinning to CPUs %v: %w", cpus, err)
	}
	err := cmd.Start()
	if rerr := unix.SchedSetaffinity(0, &old); rerr != nil && err == nil {
		err = fmt.Errorf("restoring this thread's CPU affinity: %w", rerr)
	}
	return err
}

// ownCpus: the CPUs this process may run on, as Linux lists them (Cpus_allowed_list, e.g. "0-1").
func ownCpus() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
