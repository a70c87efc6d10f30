package main

// What ran (docs/DESIGN.md rule 8): the Go toolchain, GOGC, GOMAXPROCS, GOEXPERIMENT, CPU, host, and
// how the worker times and counts.

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	pb "codecbench/go/gen/codecbench/v1"
	"codecbench/go/internal/measure"
)

func environment() *pb.Environment {
	cpu := runtime.GOARCH
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	host, _ := os.Hostname()
	osName := runtime.GOOS
	if r, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		osName += " " + strings.TrimSpace(string(r))
	}
	gogc := os.Getenv("GOGC")
	if gogc == "" {
		gogc = "100 (default)"
	}
	details := map[string]string{
		"GOGC":            gogc,
		"GOMAXPROCS":      fmt.Sprint(runtime.GOMAXPROCS(0)),
		"GOMEMLIMIT":      orDefault(os.Getenv("GOMEMLIMIT"), "unset"),
		"GOEXPERIMENT":    "",
		"target":          runtime.GOOS + "-" + runtime.GOARCH,
		"allocBytes":      measure.AllocMethod,
		"trial_isolation": "a fresh `codecbench-go-worker trial` process per trial (the worker re-executes its own binary), pinned to the task's lane",
		"clock":           "time.Now / time.Since (monotonic)",
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "GOEXPERIMENT", "-gcflags", "-ldflags", "CGO_ENABLED", "GOAMD64":
				details[s.Key] = s.Value
			}
		}
	}
	if details["GOEXPERIMENT"] == "" {
		details["GOEXPERIMENT"] = "(none)"
	}
	return &pb.Environment{
		Language: "go", Runtime: "gc", RuntimeVersion: strings.TrimPrefix(runtime.Version(), "go"),
		BuildProfile: "release", CpuModel: cpu, Cores: uint32(runtime.NumCPU()), Hostname: host, Os: osName, Details: details,
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
