"""`make fidelity`: codecbench's figures against the field's standard harnesses (issue 9 item 7).

Runs, on the same canonical data (dataset × 1000 records, seed 1):
- criterion (rust/codecs/benches/fidelity.rs): `find(codec).encode(&records)` / typed `decode`;
- JMH (java/src/jmh, Maven profile `fidelity`): the Java `Codec`'s `encode` / `decodeTyped`, on the
  canonical blob and the Rust payload the criterion bench wrote;
- Go's testing.B (go/internal/codecs/fidelity_test.go): the Go codec's `Encode` / typed decode
  (`codecs.Op`), on the same canonical blob and Rust payload;
- codecbench itself: harness/scenarios/fidelity.yaml with local Rust, Java and Go workers;
then prints, per cell, the reference median [CI], codecbench's median [CI] and their ratio with a
conservative interval (lo = cb_lo / ref_hi, hi = cb_hi / ref_lo). The goal is 0.95–1.05.

Figures are ns per operation (one operation = the whole 1000-record payload):
- criterion: the median of its samples and criterion's bootstrap 95 % interval of that median
  (target/criterion/<id>/new/estimates.json);
- JMH: the median over every measurement iteration of every fork, with the same distribution-free
  95 % rerun interval codecbench uses over trials (stats.median_ci); JMH's own mean ± 99.9 % is kept in
  fidelity.json;
- testing.B: the median over `-count` runs of the benchmark (each a calibrated b.N loop), with the
  same interval;
- codecbench: the cell's median over trials and its interval (results.cells_frame). Decode cells
  are those of the rust producer's payload (json, bson and protobuf payloads are byte-identical
  across producers).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from . import stats

ROOT = Path(__file__).resolve().parents[2]
DATASETS = ("dummy", "numeric")
CODECS = ("json", "bson", "protobuf")
OPERATIONS = ("encode", "decode")  # decode = typed decode
# The reference harness of each language compared.
REFERENCE = {"rust": "criterion", "java": "JMH", "go": "testing.B"}
LANGUAGES = tuple(REFERENCE)
COUNT, SEED = 1000, 1
GOAL = (0.95, 1.05)
SCENARIO = ROOT / "harness/scenarios/fidelity.yaml"
JMH_JAR = ROOT / "java/target/fidelity/codecbench-fidelity.jar"
JMH_CLASS = "dev.codecbench.fidelity.FidelityBench"
# JMH method name -> codecbench operation.
JMH_OPERATIONS = {"encode": "encode", "decodeTyped": "decode"}
# criterion's function id -> codecbench operation (ids are "<dataset>/<codec>/<function>").
CRITERION_OPERATIONS = {"encode": "encode", "decode-typed": "decode"}
# testing.B's sub-benchmarks are named as criterion's ("BenchmarkFidelity/<dataset>/<codec>/<op>").
GO_OPERATIONS = CRITERION_OPERATIONS
UNIT_NS = {"ns/op": 1.0, "us/op": 1e3, "µs/op": 1e3, "ms/op": 1e6, "s/op": 1e9}


class FidelityError(Exception):
    """Something could not be run or read; the message says what and where."""


@dataclass(frozen=True)
class Figure:
    median: float
    lo: float
    hi: float
    n: int  # samples (criterion), iterations (JMH) or trials (codecbench)
    source: str


Key = tuple[str, str, str, str]  # (language, dataset, codec, operation)


def cell_name(key: Key) -> str:
    lang, dataset, codec, op = key
    return f"{lang} {dataset} {codec} {op if op == 'encode' else 'decode typed'}"


def wanted_cells(languages=LANGUAGES) -> list[Key]:
    return [(lang, d, c, op) for lang in languages for d in DATASETS for c in CODECS for op in OPERATIONS]


# ---- criterion ----------------------------------------------------------------------------------

def read_criterion(criterion_dir: Path, since: float = 0.0) -> dict[Key, Figure]:
    """Every `<id>/new/estimates.json` (with its benchmark.json) under criterion_dir written at or
    after `since` (epoch seconds; older ones are stale results of another run)."""
    out: dict[Key, Figure] = {}
    if not criterion_dir.is_dir():
        raise FidelityError(f"{criterion_dir}: no criterion results (did the Rust bench run?)")
    for est_path in sorted(criterion_dir.glob("**/new/estimates.json")):
        if est_path.stat().st_mtime < since:
            continue
        bench_path = est_path.parent / "benchmark.json"
        try:
            bench = json.loads(bench_path.read_text())
            est = json.loads(est_path.read_text())
        except (OSError, ValueError) as exc:
            raise FidelityError(f"{est_path.parent}: unreadable criterion output: {exc}") from None
        parts = str(bench.get("full_id", "")).split("/")
        if len(parts) != 3 or parts[2] not in CRITERION_OPERATIONS:
            continue  # not one of the fidelity benches
        dataset, codec, fn = parts
        try:
            m = est["median"]
            ci = m["confidence_interval"]
            fig = Figure(float(m["point_estimate"]), float(ci["lower_bound"]), float(ci["upper_bound"]),
                         0, "criterion")
        except (KeyError, TypeError, ValueError):
            raise FidelityError(f"{est_path}: no median with a confidence interval") from None
        n = _criterion_samples(est_path.parent / "sample.json")
        out[("rust", dataset, codec, CRITERION_OPERATIONS[fn])] = Figure(fig.median, fig.lo, fig.hi, n,
                                                                         "criterion")
    return out


def _criterion_samples(path: Path) -> int:
    try:
        return len(json.loads(path.read_text()).get("iters", []))
    except (OSError, ValueError):
        return 0


# ---- JMH ----------------------------------------------------------------------------------------

def read_jmh(path: Path) -> tuple[dict[Key, Figure], dict[Key, dict]]:
    """JMH's `-rf json` output: per cell the median over all iterations of all forks and its
    distribution-free 95 % interval; also JMH's own mean and 99.9 % interval, forks, iterations."""
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise FidelityError(f"{path}: unreadable JMH result: {exc}") from None
    if not isinstance(doc, list):
        raise FidelityError(f"{path}: expected JMH's JSON list of benchmarks")
    figures: dict[Key, Figure] = {}
    extra: dict[Key, dict] = {}
    for b in doc:
        method = str(b.get("benchmark", "")).rsplit(".", 1)[-1]
        params = b.get("params") or {}
        if method not in JMH_OPERATIONS or "dataset" not in params or "codec" not in params:
            continue
        pm = b.get("primaryMetric") or {}
        unit = pm.get("scoreUnit", "")
        if unit not in UNIT_NS:
            raise FidelityError(f"{path}: {b.get('benchmark')} is in {unit!r}, expected a time per op "
                                f"(mode avgt)")
        scale = UNIT_NS[unit]
        raw = pm.get("rawData") or []
        values = [float(v) * scale for fork in raw for v in fork]
        if not values:
            raise FidelityError(f"{path}: {b.get('benchmark')} {params} has no iterations")
        ci = stats.median_ci(values)
        key = ("java", params["dataset"], params["codec"], JMH_OPERATIONS[method])
        figures[key] = Figure(ci.median, ci.lo, ci.hi, ci.n, "JMH")
        conf = pm.get("scoreConfidence") or [math.nan, math.nan]
        extra[key] = {"jmh_mean_ns": float(pm.get("score", math.nan)) * scale,
                      "jmh_mean_ci999_ns": [float(x) * scale for x in conf],
                      "forks": len(raw), "iterations": len(values), "jvm": b.get("vmVersion", "")}
    return figures, extra


# ---- Go's testing.B ----------------------------------------------------------------------------

_GO_LINE = re.compile(r"^BenchmarkFidelity/([\w-]+)/([\w-]+)/([\w-]+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op")


def read_go_bench(text: str) -> dict[Key, Figure]:
    """`go test -bench BenchmarkFidelity -count N` output: per cell the median over its N runs and
    the distribution-free 95 % interval of that median."""
    values: dict[Key, list[float]] = {}
    for line in text.splitlines():
        m = _GO_LINE.match(line.strip())
        if m and m.group(3) in GO_OPERATIONS:
            key = ("go", m.group(1), m.group(2), GO_OPERATIONS[m.group(3)])
            values.setdefault(key, []).append(float(m.group(4)))
    if not values:
        raise FidelityError("no BenchmarkFidelity result lines in the go test output "
                            "(did the benchmark skip? it needs CODECBENCH_FIDELITY_DIR)")
    figures = {}
    for key, vs in values.items():
        ci = stats.median_ci(vs)
        figures[key] = Figure(ci.median, ci.lo, ci.hi, ci.n, "testing.B")
    return figures


# ---- codecbench ---------------------------------------------------------------------------------

def read_codecbench(run_dir: Path, languages=LANGUAGES) -> tuple[dict[Key, Figure], list[str]]:
    """The fidelity cells of a codecbench results folder: encode by each language's worker, typed
    decode of the rust producer's payload by each language's worker. Returns figures and failures."""
    from . import results

    df = results.read_measurements(run_dir)
    langs = results.language_map(df, results.read_run_doc(run_dir))
    cells = results.cells_frame(df)
    figures: dict[Key, Figure] = {}
    failures: list[str] = []
    for c in cells.to_dict("records"):
        if c.get("aa_twin") or int(c.get("record_count") or 0) != COUNT:
            continue
        op = c["operation"]
        if op == "decode":
            if c.get("decode_mode") != "typed" or results.lang_of(c["producer"], langs) != "rust":
                continue
            lang = results.lang_of(c["consumer"], langs)
        elif op == "encode":
            lang = results.lang_of(c["producer"], langs)
        else:
            continue
        key = (lang, c["dataset"], c["codec"], op)
        if key not in set(wanted_cells(languages)):
            continue
        if c.get("failure"):
            failures.append(f"{cell_name(key)}: {c['failure']}")
            continue
        if key in figures:
            raise FidelityError(f"{run_dir}: two codecbench cells for {cell_name(key)} (several workers "
                                f"of one language?)")
        figures[key] = Figure(float(c["median_ns_per_op"]), float(c["lo_ns_per_op"]),
                              float(c["hi_ns_per_op"]), int(c["trials"]), "codecbench")
    return figures, failures


# ---- the table ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Row:
    cell: str
    language: str
    dataset: str
    codec: str
    operation: str
    reference: Figure | None
    codecbench: Figure | None
    ratio: float
    ratio_lo: float
    ratio_hi: float

    @property
    def within(self) -> bool | None:
        """Whether the ratio of medians is inside the goal; None when a side is missing."""
        if math.isnan(self.ratio):
            return None
        return GOAL[0] <= self.ratio <= GOAL[1]

    @property
    def interval_inside(self) -> bool:
        return GOAL[0] <= self.ratio_lo and self.ratio_hi <= GOAL[1]


def ratio_interval(cb: Figure, ref: Figure) -> tuple[float, float, float]:
    """codecbench / reference, with the conservative interval from both intervals."""
    if not (ref.median > 0 and ref.lo > 0 and ref.hi > 0):
        return math.nan, math.nan, math.nan
    return cb.median / ref.median, cb.lo / ref.hi, cb.hi / ref.lo


def build_rows(reference: dict[Key, Figure], codecbench: dict[Key, Figure], languages=LANGUAGES) -> list[Row]:
    rows = []
    for key in wanted_cells(languages):
        ref, cb = reference.get(key), codecbench.get(key)
        r = ratio_interval(cb, ref) if ref and cb else (math.nan,) * 3
        rows.append(Row(cell_name(key), *key, ref, cb, *r))
    return rows


def _fig(f: Figure | None) -> str:
    if f is None:
        return "missing"
    return f"{f.median:,.0f} [{f.lo:,.0f}, {f.hi:,.0f}]"


def format_table(rows: list[Row]) -> str:
    head = ("cell", "reference ns/op [95% CI]", "codecbench ns/op [95% CI]", "ratio cb/ref [interval]",
            "0.95-1.05")
    body = []
    for r in rows:
        tool = r.reference.source if r.reference else REFERENCE[r.language]
        ratio = "—" if math.isnan(r.ratio) else f"{r.ratio:.3f} [{r.ratio_lo:.3f}, {r.ratio_hi:.3f}]"
        verdict = {None: "—", True: "yes" if r.interval_inside else "yes (interval wider)",
                   False: "NO"}[r.within]
        body.append((r.cell, f"{tool}: {_fig(r.reference)}", _fig(r.codecbench), ratio, verdict))
    widths = [max(len(x[i]) for x in [head, *body]) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in [head, *body]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    measured = [r for r in rows if r.within is not None]
    inside = sum(1 for r in measured if r.within)
    lines.append("")
    lines.append(f"{inside} of {len(measured)} measured cell(s) have a ratio inside {GOAL[0]}-{GOAL[1]}"
                 + (f"; {len(rows) - len(measured)} cell(s) missing a side" if len(measured) < len(rows) else ""))
    ratios = [r.ratio for r in measured]
    if ratios:
        lines.append(f"ratios: median {stats.median(ratios):.3f}, min {min(ratios):.3f}, max {max(ratios):.3f}")
    return "\n".join(lines)


def rows_json(rows: list[Row]) -> list[dict]:
    out = []
    for r in rows:
        d = asdict(r)
        d["within"] = r.within
        d["interval_inside"] = r.interval_inside
        out.append(d)
    return out


# ---- running the three ------------------------------------------------------------------------

def busy_warning(loads: dict[str, float], cores: int) -> str:
    """A warning when other work competed for the CPU: the benches themselves keep about one core
    busy, so a 1-minute load average above 3/4 of the cores means someone else was running too."""
    limit = 0.75 * max(cores, 1)
    busy = {k: v for k, v in loads.items() if v > limit}
    if not busy:
        return ""
    worst = max(busy, key=busy.get)
    return (f"warning: the machine was busy (1-minute load average up to {busy[worst]:.1f} on {cores} cores, "
            f"at {worst}): other processes competed with the benches, so these ratios measure that "
            f"competition too; run again on a quiet machine before judging")


LOADS: dict[str, float] = {}


def _load(label: str) -> None:
    try:
        LOADS[label] = os.getloadavg()[0]
    except OSError:
        pass


def _run(cmd: list[str], cwd: Path, env: dict, log: Path) -> None:
    print(f"$ {' '.join(cmd)}  (in {cwd.relative_to(ROOT) if cwd.is_relative_to(ROOT) else cwd}; "
          f"log {log})", flush=True)
    t = time.monotonic()
    with log.open("w") as f:
        code = subprocess.call(cmd, cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT)
    _load(f"end of {log.stem}")
    if code != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-25:])
        raise FidelityError(f"`{' '.join(cmd)}` exited {code}; last lines of {log}:\n{tail}")
    print(f"  done in {time.monotonic() - t:.0f} s", flush=True)


def cargo_target_dir() -> Path:
    env = os.environ.get("CARGO_TARGET_DIR")
    return Path(env) if env else ROOT / "rust/target"


def run_criterion(out: Path, env: dict) -> dict[Key, Figure]:
    since = time.time() - 1
    _run(["cargo", "bench", "--locked", "-p", "codecbench-codecs", "--bench", "fidelity", "--", "--noplot"],
         ROOT / "rust", env, out / "criterion.log")
    figures = read_criterion(cargo_target_dir() / "criterion", since)
    _copy_criterion(cargo_target_dir() / "criterion", out / "criterion", since)
    return figures


def _copy_criterion(src: Path, dst: Path, since: float) -> None:
    """Keeps this run's estimates beside the table (criterion overwrites its own on the next run)."""
    for est in src.glob("**/new/estimates.json"):
        if est.stat().st_mtime >= since:
            rel = est.parent.relative_to(src)
            (dst / rel).mkdir(parents=True, exist_ok=True)
            for name in ("estimates.json", "benchmark.json", "sample.json"):
                if (est.parent / name).exists():
                    (dst / rel / name).write_bytes((est.parent / name).read_bytes())


def run_jmh(out: Path, env: dict, forks: int) -> tuple[dict[Key, Figure], dict[Key, dict]]:
    _run(["mvn", "-B", "-ntp", "-q", "-Pfidelity", "package", "-Dmaven.test.skip=true"], ROOT / "java", env,
         out / "jmh-build.log")
    result = out / "jmh.json"
    _run(["java", "-jar", str(JMH_JAR), "-f", str(forks), "-rf", "json", "-rff", str(result), JMH_CLASS],
         ROOT, env, out / "jmh.log")
    return read_jmh(result)


def run_testing_b(out: Path, env: dict, count: int) -> dict[Key, Figure]:
    log = out / "go-bench.log"
    # -cpu 1: a Go trial process is pinned to one CPU, so its GOMAXPROCS is 1 (docs/fidelity.md).
    _run(["go", "test", "./internal/codecs", "-run", "^$", "-bench", "^BenchmarkFidelity$", "-benchmem",
          "-count", str(count), "-cpu", "1", "-benchtime", "1s", "-timeout", "60m"], ROOT / "go", env, log)
    return read_go_bench(log.read_text(errors="replace"))


def run_codecbench(out: Path, env: dict, languages=LANGUAGES) -> Path:
    results_dir = out / "codecbench"
    # Only the languages compared, and Rust, whose payloads every decode cell reads.
    workers = ",".join(dict.fromkeys(("rust", *languages)))
    _run([str(ROOT / ".venv/bin/codecbench"), "run", str(SCENARIO), "--local", "--no-report", "--no-progress",
          "--languages", workers, "--results-dir", str(results_dir)], ROOT, env, out / "codecbench.log")
    return find_run_dir(results_dir)


def find_run_dir(results_dir: Path) -> Path:
    runs = sorted(p for p in results_dir.iterdir() if p.is_dir()) if results_dir.is_dir() else []
    if not runs:
        raise FidelityError(f"{results_dir}: codecbench wrote no results folder")
    return runs[-1]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="codecbench.fidelity", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, help="output folder (default results/fidelity-<time>/)")
    p.add_argument("--forks", type=int, default=2, help="JMH forks per benchmark (default 2, at least 2)")
    p.add_argument("--skip-rust", action="store_true", help="no criterion: no Rust cells "
                   "(needs the canonical files of an earlier run in --out/canonical)")
    p.add_argument("--skip-java", action="store_true", help="no JMH: no Java cells")
    p.add_argument("--skip-go", action="store_true", help="no testing.B: no Go cells")
    p.add_argument("--go-count", type=int, default=10, help="testing.B runs per benchmark (default 10, at least 5)")
    p.add_argument("--codecbench-run", type=Path, metavar="RUN_DIR",
                   help="use this codecbench results folder instead of running the fidelity scenario")
    p.add_argument("--strict", action="store_true", help="exit 1 when a cell's ratio is outside 0.95-1.05")
    args = p.parse_args(argv)
    if args.forks < 2:
        p.error("--forks: at least 2 (JMH forks are fidelity's independent trials)")
    if args.go_count < 5:
        p.error("--go-count: at least 5 (a median's interval needs them)")
    languages = tuple(x for x in REFERENCE if not getattr(args, f"skip_{x}"))
    if not languages:
        p.error("nothing to compare: every language skipped")
    out = (args.out or ROOT / "results" / time.strftime("fidelity-%Y%m%d-%H%M%S")).resolve()
    (out / "canonical").mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, CODECBENCH_FIDELITY_DIR=str(out / "canonical"))
    started = time.monotonic()
    _load("start")
    try:
        reference: dict[Key, Figure] = {}
        jmh_extra: dict[Key, dict] = {}
        if "rust" in languages:
            reference.update(run_criterion(out, env))
        if "java" in languages:
            figs, jmh_extra = run_jmh(out, env, args.forks)
            reference.update(figs)
        if "go" in languages:
            reference.update(run_testing_b(out, env, args.go_count))
        run_dir = args.codecbench_run or run_codecbench(out, env, languages)
        cb, failures = read_codecbench(run_dir, languages)
    except FidelityError as exc:
        print(f"fidelity: {exc}", file=sys.stderr)
        return 1
    rows = build_rows(reference, cb, languages)
    table = format_table(rows)
    print(f"\nfidelity: codecbench ({run_dir}) against {', '.join(REFERENCE[x] for x in languages)}, {COUNT} records, seed {SEED}, "
          f"ns per operation (the whole payload)\n")
    print(table)
    for f in failures:
        print(f"codecbench failure: {f}")
    warning = busy_warning(LOADS, os.cpu_count() or 1)
    if warning:
        print(warning)
    elapsed = time.monotonic() - started
    print(f"\ntook {elapsed:.0f} s; written to {out}/fidelity.json and fidelity.txt")
    (out / "fidelity.txt").write_text(table + "\n")
    (out / "fidelity.json").write_text(json.dumps({
        "count": COUNT, "seed": SEED, "goal": GOAL, "codecbench_run": str(run_dir), "seconds": elapsed,
        "rows": rows_json(rows), "codecbench_failures": failures, "load_average_1min": LOADS,
        "jmh": {cell_name(k): v for k, v in jmh_extra.items()}}, indent=2, default=str))
    missing = [r.cell for r in rows if r.within is None]
    if missing or failures:
        print(f"fidelity: {len(missing)} cell(s) without both figures: {', '.join(missing)}", file=sys.stderr)
        return 1
    if args.strict and not all(r.within for r in rows):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
