"""The local stack: `up`, `down`, `browser`, and the control and workers a `run --local` starts
(in a network lab when the scenario asks for one)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path


from .. import netlab, processes, userrun
from ..client import ControlUnreachable, connect, wait_for_workers
from ..processes import Artifacts, LaunchError, Proc
from ..scenario import EXIT_INVALID
from .base import EXIT_OK, EXIT_USAGE, CliError, err, Local, resolve_control


def _worker_plan(art: Artifacts, wanted: set[str] | None, browsers: int,
                 per_kind: int = 1) -> tuple[dict[str, int], list[str]]:
    """Which worker kinds to start ({kind: count}) and why others are skipped; `per_kind` workers
    of every other kind (two for duets: a duet runs on two workers of a language)."""
    plan, skipped = {}, []
    for kind in processes.KINDS:
        count = browsers if kind == "browser" else per_kind
        if wanted is not None and kind not in wanted:
            continue
        if count <= 0:
            continue
        why = art.missing(kind)
        if why:
            skipped.append(f"{kind} worker skipped: {why}")
        else:
            plan[kind] = count
    return plan, skipped


LANES_HELP = ("tasks control runs at once, each trial pinned to its own CPUs (default: one per two "
              "CPUs; docs/DESIGN.md \"Lanes\")")


def start_stack(local: Local, listen: str, plan: dict[str, int], prefix: str,
                started: list[Proc], out=err, timeout: float = 90.0, lab: netlab.Lab | None = None,
                extra: tuple[str, ...] = (), rust_program: Path | None = None,
                lanes: int | None = None, hosts: bool = False) -> str:
    """Start control and the planned workers, save pid files, wait until the workers attach.
    With a network lab, control and each worker run in the lab's namespaces, each worker dialing
    control over its shaped link; the harness dials control over the lab's admin link. With
    `hosts` (replicas in a lab), every worker process has a namespace and a host name of its own
    (`lab_names`), and control gives each host lanes of its own (docs/DESIGN.md "Hosts").

    Every started process is appended to `started` as soon as it exists, so the caller can stop
    them whatever happens here.
    """
    local.logs.mkdir(parents=True, exist_ok=True)
    control_extra: tuple[str, ...] = ()
    if lab is not None:
        listen = "0.0.0.0:0"
        control_extra = tuple(a for h in lab.hosts() for a in ("--allow-host", h))
    if lanes is not None:
        control_extra += ("--lanes", str(lanes))
    if hosts and lab is not None:
        control_extra += ("--lanes-per-host",)
    proc, addr = processes.start_control(local.art, listen, local.control_dir,
                                         local.logs / f"{prefix}control.log",
                                         netns=lab.control_ns if lab else None, extra=control_extra)
    started.append(proc)
    local.pids.save(proc, f"{prefix}control")
    names = lab_names(plan) if hosts else {kind: [kind] for kind in plan}
    dial = {name: addr for ns in names.values() for name in ns}
    if lab is not None:
        lab.start_proxies(int(addr.rsplit(":", 1)[1]), netlab.toxiproxy_binary(local.root),
                          local.logs / f"{prefix}toxiproxy.log")
        addr = lab.control_addr()
        dial = {name: lab.links[name].dial for name in dial}
        out(f"network    {lab.profile.describe()}  (lab cb{lab.slot}: control in {lab.control_ns})")
        probe_links(lab, out)
    out(f"control    {addr}  (pid {proc.pid}, log {proc.log})")
    procs = []
    for kind, count in plan.items():
        # One browser driver runs `count` pages; other kinds start `count` processes.
        for i in range(1 if kind == "browser" else count):
            name = kind if i == 0 else f"{kind}-{i + 1}"
            link = names[kind][i] if hosts else kind
            wp = processes.start_worker(local.art, kind, dial[link], local.logs / f"{prefix}{name}.log", count=count,
                                        netns=lab.links[link].netns if lab else None, extra=extra,
                                        program=rust_program if kind == "rust" else None,
                                        hostname=host_name(link) if hosts and lab else None)
            started.append(wp)
            procs.append(wp)
            local.pids.save(wp, f"{prefix}{name}")
            out(f"{kind:<10} started{f' ({count} pages)' if kind == 'browser' else ''}  (pid {wp.pid}, log {wp.log})")

    def alive():
        for p in procs:
            if not p.alive():
                raise LaunchError(f"the {p.kind} worker exited before attaching; log {p.log}:\n"
                                  f"{processes.log_tail(p.log)}")

    with connect(addr, ready_timeout=10) as control:
        try:
            workers = wait_for_workers(control, list(plan), timeout, counts=plan, alive=alive)
        except TimeoutError as exc:
            attached = {w.environment.language for w in control.list_workers()}
            lines = []
            for p in procs:
                if p.kind in attached:
                    continue
                # The browser driver keeps the pages' console beside its own log.
                for log in (p.log, p.log.with_name(p.log.stem + ".pages.log")):
                    if log.exists():
                        lines.append(f"  {log}:\n{processes.log_tail(log, 8)}")
            raise LaunchError(f"{exc}\n" + "\n".join(lines)) from None
    for w in workers:
        out(f"worker     {w.id}  ({w.environment.language}, "
            f"{', '.join(c.id for c in w.codecs) or 'no codecs'})")
    return addr


def lab_names(plan: dict[str, int]) -> dict[str, list[str]]:
    """kind → the names of its worker processes (rust, rust-2, ...): with replicas in a lab each
    is a host of its own. A browser driver is one process whatever its page count."""
    return {kind: [kind if i == 0 else f"{kind}-{i + 1}" for i in range(1 if kind == "browser" else count)]
            for kind, count in plan.items()}


def host_name(worker: str) -> str:
    """The host name a worker in a lab namespace of its own reports: this machine's name and the
    worker's, the same from run to run (compare matches hosts by name)."""
    return f"{os.uname().nodename}-{worker}"[:64]


def probe_links(lab: netlab.Lab, out=err) -> None:
    """Measure every worker link from the worker's namespace (netprobe.py) before the workers
    start: about one second of data each way at the profile's rate, and 15 round trips."""
    def size(mbit):
        return (8 << 20) if mbit is None else int(min(8 << 20, max(64 << 10, mbit * 1e6 / 8)))

    for kind, link in lab.links.items():
        up, down = size(lab.profile.up_mbit or lab.profile.down_mbit), size(lab.profile.down_mbit)
        argv = ["ip", "netns", "exec", link.netns, sys.executable, "-m", "codecbench.netprobe",
                "--control", link.dial, "--up", str(up), "--down", str(down)]
        res = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        if res.returncode != 0:
            raise LaunchError(f"the {kind} link ({link.netns} → {link.dial}) failed its probe: "
                              f"{(res.stderr or res.stdout).strip()}")
        lab.measured[kind] = json.loads(res.stdout)
        m = lab.measured[kind]
        out(f"link       {kind}: RTT {m['rtt_ms']:.1f} ms, {m['down_mbit']:.3g} Mbit/s down, "
            f"{m['up_mbit']:.3g} Mbit/s up (measured)")


def stop_procs(procs: list[Proc], local: Local | None = None) -> list[str]:
    """Stop workers first (so they do not see control vanish mid-task), then control; drop their
    pid files."""
    stopped = []
    for p in sorted(procs, key=lambda p: p.kind == "control"):
        if processes.stop(p):
            stopped.append(f"{p.name} (pid {p.pid})")
    if local is not None:
        pids = {p.pid for p in procs}
        for f, saved in local.pids.load_all():
            if saved.pid in pids:
                f.unlink(missing_ok=True)
    return stopped


def cmd_up(args) -> int:
    local = Local()
    local.forget_stale()
    if (addr := local.running_addr()):
        err(f"control is already running at {addr} (started by `codecbench up`); "
            "`codecbench down` stops it.")
        return EXIT_OK
    listen = args.listen or os.environ.get("CODECBENCH_LISTEN") or processes.DEFAULT_LISTEN
    wanted = None
    if args.workers:
        wanted = {k.strip() for k in args.workers.split(",") if k.strip()}
        if (unknown := wanted - set(processes.KINDS)):
            raise CliError(f"--workers: unknown kind(s) {', '.join(sorted(unknown))} "
                           f"(known: {', '.join(processes.KINDS)})", EXIT_INVALID)
    plan, skipped = _worker_plan(local.art, wanted, args.browsers)
    for line in skipped:
        err(line)
    started: list[Proc] = []
    try:
        addr = start_stack(local, listen, plan, "", started, timeout=args.timeout, lanes=args.lanes)
    except (LaunchError, ControlUnreachable) as exc:
        stop_procs(started, local)
        raise CliError(f"up failed: {exc}\n(stopped what was started)") from None
    except BaseException:
        stop_procs(started, local)
        raise
    local.addr_file.write_text(addr + "\n")
    if not plan:
        err("warning: no worker could be started; control is running without workers")
    err(f"up: control at {addr}; state in {local.state}; `codecbench down` stops everything")
    return EXIT_OK


def cmd_down(args) -> int:
    local = Local()
    entries = local.pids.load_all()
    procs = [p for _, p in entries]
    stopped = stop_procs(procs)
    for f, _ in entries:
        f.unlink(missing_ok=True)
    local.addr_file.unlink(missing_ok=True)
    if netlab.available() is None:
        # A killed `run --local --network ...` leaves its namespaces (and what ran in them).
        stopped += netlab.remove_leftovers()
    err(f"stopped: {', '.join(stopped)}" if stopped else "nothing was running")
    return EXIT_OK


def cmd_browser(args) -> int:
    local = Local()
    if (why := local.art.missing("browser")):
        raise CliError(f"cannot start browser workers: {why} (build the web worker first)")
    addr = resolve_control(args)
    with connect(addr) as control:
        before = sum(1 for w in control.list_workers() if w.environment.language == "browser")
        name = local.pids.next_name("browser")
        proc = processes.start_worker(local.art, "browser", addr, local.logs / f"{name}.log",
                                      name=name, count=args.count)
        local.pids.save(proc, name)

        def alive():
            if not proc.alive():
                raise LaunchError(f"the browser driver exited; log {proc.log}:\n{processes.log_tail(proc.log)}")

        try:
            wait_for_workers(control, ["browser"], args.timeout, counts={"browser": before + args.count},
                             alive=alive)
        except (TimeoutError, LaunchError) as exc:
            processes.stop(proc)
            (local.pids.path / f"{name}.pid").unlink(missing_ok=True)
            raise CliError(f"browser workers did not attach: {exc}") from None
    err(f"{args.count} browser worker(s) attached to {addr} (driver pid {proc.pid}, log {proc.log})")
    return EXIT_OK


def _network(loaded, args) -> netlab.Profile:
    """The scenario's network (--network has replaced it by now), as a netlab profile."""
    net = loaded.message.network
    custom = {json_name: getattr(net, f) for f, json_name in (
        ("down_mbit", "downMbit"), ("up_mbit", "upMbit"), ("rtt_ms", "rttMs"), ("jitter_ms", "jitterMs"))
        if net.HasField(f)}
    return netlab.profile(net.profile, custom or None)


def _lab_token(local: Local) -> None:
    """Control in a lab listens off loopback, so it requires a token: the user's, else a fresh
    one in the run's folder, which every process started here (and this one) then uses."""
    if os.environ.get("CODECBENCH_TOKEN_FILE") or os.environ.get("CODECBENCH_TOKEN"):
        return
    import secrets

    local.base.mkdir(parents=True, exist_ok=True)
    token = local.base / "token"
    token.touch(mode=0o600)
    token.write_text(secrets.token_hex(32) + "\n")
    os.environ["CODECBENCH_TOKEN_FILE"] = str(token)


def _start_local(stack: ExitStack, selectors: list[str], args, prof: netlab.Profile | None = None,
                 duets: bool = False, replicas: bool = False) -> str:
    """Start control and the scenario's workers for one run. With `duets` (sampling.duets), two
    workers of each language and, unless --lanes says otherwise, two lanes: a duet runs two
    trials at once, one per worker and lane (docs/DESIGN.md "Duets"). With `replicas`
    (sampling.replicas), two workers of each language; in a network lab each is a host of its
    own, with lanes of its own (docs/DESIGN.md "Hosts")."""
    up = Local()
    up.forget_stale()
    lab_wanted = prof is not None and prof.name != "loopback"
    if (addr := up.running_addr()) and lab_wanted:
        raise CliError(f"--local --network {prof.name}: control started by `codecbench up` is running at "
                       f"{addr}; a network lab starts its own (`codecbench down` first)", EXIT_USAGE)
    if addr:
        err(f"--local: using control already started by `codecbench up` at {addr} (left running)")
        return addr
    if duets and getattr(args, "lanes", None) is None:
        args.lanes = 2
    local = Local.for_local_run()
    args.local_logs = local.logs
    kinds = {processes.kind_of_selector(s) for s in selectors}
    wanted = None if not selectors else {k for k in kinds if k}
    browsers = getattr(args, "browsers", 1)
    two = duets or replicas
    plan, skipped = _worker_plan(local.art, wanted, max(browsers, 2) if two else browsers, 2 if two else 1)
    needed_missing = [s for s in skipped if wanted is not None]
    if needed_missing:
        raise CliError(f"{args.scenario}: the scenario needs workers that are not built: "
                       + "; ".join(needed_missing))
    for line in skipped:
        err(line)
    started: list[Proc] = []

    def stop_and_tidy():
        stop_procs(started, local)
        # The results are in results/<run-id>/ and the database; payloads and canonical data
        # would only fill the disk run after run.
        shutil.rmtree(local.control_dir / "blobs", ignore_errors=True)

    lab = None
    if lab_wanted:
        try:
            links = [n for ns in lab_names(plan).values() for n in ns] if replicas else list(plan)
            lab = netlab.create(prof, links, log=err)
        except netlab.LabError as exc:
            raise CliError(f"--local: {exc}") from None
        # Registered before the processes' stop, so it runs after it: namespaces go last.
        stack.callback(lab.teardown)
        _lab_token(local)
    # Registered first so that it runs last: stop everything we started, whatever happens.
    stack.callback(stop_and_tidy)
    prepared = getattr(args, "prepared", [])
    rust_program = None
    try:
        if prepared and "rust" in plan:
            rust_program = userrun.rust_worker(local.root, local.state, prepared, local.logs / "rust-models.log", err)
        if prepared and "java" in plan:
            userrun.java_models(local.art.java_jar, prepared, local.logs / "java-models.log", err)
    except userrun.BuildError as exc:
        raise CliError(f"--local: {exc}") from None
    try:
        addr = start_stack(local, "127.0.0.1:0", plan, "", started, lab=lab,
                           extra=tuple(userrun.worker_args(prepared)), rust_program=rust_program,
                           lanes=getattr(args, "lanes", None), hosts=replicas)
    except (LaunchError, ControlUnreachable, netlab.LabError) as exc:
        raise CliError(f"--local: {exc}") from None
    args.network_env = lab.environment() if lab is not None else {"profile": "loopback"}
    return addr
