"""Workers as separate hosts on one machine (issue 13; docs/DESIGN.md "Network profiles").

A **network lab** puts control in one Linux network namespace and each worker in a namespace of
its own, joined to control's by a veth pair with real addresses, so workers reach control over a
routed link (with control's token: it listens off loopback), not over loopback. The harness
reaches control over an unshaped admin link from the host's namespace.

A **profile** shapes the worker links:
- rate, by the kernel: a `tbf` qdisc on each end's egress (control's end: the worker's download;
  the worker's end: its upload);
- delay and jitter, by toxiproxy (`.tools/bin/toxiproxy-server`, installed by `make setup`): a
  TCP proxy in control's namespace on each worker link, with a latency toxic per direction. The
  kernel's delay qdisc (netem) is not available on every kernel (not on the one this was built
  on), and a home-made proxy would be one more thing to trust.
  Because the proxy terminates TCP, slow start and loss recovery run over the short veth hop, not
  over the delayed path: a fresh connection's first round trips are faster than on a real link of
  that RTT. Workers keep one connection open for a run, so this touches only its first transfers.

Layout of lab slot S (1..50), with N = 200 + S:
  cbS-ctl            control (and toxiproxy); 10.N.0.1 on the admin link, 10.N.i.1 on link i
  cbS-w1 .. cbS-wK   one worker each: 10.N.i.2 on link i
  the host           the harness: 10.N.0.2 on the admin link (veth cbSh)

Every namespace is created and removed by the lab itself. Its owner (the pid that made it) is
written in `/run/codecbench/netlab/cbS.json`: namespaces belong to the whole machine, so their
registry does too (and both are gone after a reboot). A lab whose owner is gone (a killed run)
is found and removed, with the processes still inside it, before the next lab is made, and by
`codecbench down`.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path

MAX_SLOTS = 50
STATE_DIR = Path(os.environ.get("CODECBENCH_NETLAB_DIR", "/run/codecbench/netlab"))
# Where toxiproxy listens on each worker link (control's own port is whatever it bound).
PROXY_PORT = 7601
TOXIPROXY_API_PORT = 8474
NETNS = re.compile(r"^cb(\d+)-(ctl|w\d+)$")


class LabError(Exception):
    """The lab could not be set up; the message says which command failed and why."""


@dataclass(frozen=True)
class Profile:
    """A link between a worker and control. Rates in Mbit/s (None: unshaped), the round trip time
    the proxy adds (split evenly between the two directions) and its jitter, in ms."""

    name: str
    down_mbit: float | None = None
    up_mbit: float | None = None
    rtt_ms: float = 0.0
    jitter_ms: float = 0.0
    note: str = ""

    @property
    def delayed(self) -> bool:
        # toxiproxy's latency is in whole milliseconds per direction.
        return self.one_way_ms >= 1 or self.jitter_ms >= 1

    @property
    def one_way_ms(self) -> int:
        return int(round(self.rtt_ms / 2))

    def describe(self) -> str:
        rate = ("unshaped" if self.down_mbit is None else
                f"{_mbit(self.down_mbit)} down / {_mbit(self.up_mbit or self.down_mbit)} up")
        delay = f", +{self.rtt_ms:g} ms RTT" if self.rtt_ms else ""
        jitter = f" ± {self.jitter_ms:g} ms" if self.jitter_ms else ""
        return f"{self.name}: {rate}{delay}{jitter}"


def _mbit(v: float) -> str:
    return f"{v * 1000:g} kbit/s" if v < 1 else f"{v:g} Mbit/s"


# `loopback` is no lab at all: every process on the host's loopback, as without a profile.
PROFILES: dict[str, Profile] = {
    "loopback": Profile("loopback", note="every process on the host's loopback (no lab)"),
    "veth": Profile("veth", note="separate namespaces, links unshaped"),
    "lan": Profile("lan", 1000, 1000, 0.2,
                   note="1 Gbit/s; its 0.2 ms RTT is below what the proxy can add (whole ms), the "
                        "veth hop's own RTT stands for it and is measured"),
    "wifi": Profile("wifi", 50, 20, 10, 3),
    "4g": Profile("4g", 20, 8, 60, 10),
    # Chrome DevTools' and Lighthouse's mobile throttling figures for a fast 3G link.
    "3g": Profile("3g", 1.6, 0.77, 150),
}


def profile(name: str = "", custom: dict | None = None) -> Profile:
    """A named profile, or custom values (downMbit, upMbit, rttMs, jitterMs) over it."""
    base = PROFILES.get(name or ("veth" if custom else "loopback"))
    if base is None:
        raise LabError(f"unknown network profile {name!r}; known: {', '.join(PROFILES)}")
    if not custom:
        return base
    vals = {"down_mbit": custom.get("downMbit", base.down_mbit), "up_mbit": custom.get("upMbit", base.up_mbit),
            "rtt_ms": custom.get("rttMs", base.rtt_ms), "jitter_ms": custom.get("jitterMs", base.jitter_ms)}
    for k, v in vals.items():
        if v is not None and (not isinstance(v, (int, float)) or v < 0 or (k.endswith("mbit") and v == 0)):
            raise LabError(f"network: {k} must be a positive number, not {v!r}")
    return Profile(f"{base.name}+custom" if name else "custom", **vals)


def _run(argv: list[str], check: bool = True) -> subprocess.CompletedProcess:
    res = subprocess.run(argv, capture_output=True, text=True)
    if check and res.returncode != 0:
        raise LabError(f"`{' '.join(argv)}` failed (exit {res.returncode}): "
                       f"{(res.stderr or res.stdout).strip()}")
    return res


def available() -> str | None:
    """None when a lab can be made here, else why not."""
    if os.geteuid() != 0:
        return "network namespaces need root (run as root, or use the loopback profile)"
    for tool in ("ip", "tc"):
        if shutil.which(tool) is None:
            return f"`{tool}` is not installed (apt-get install iproute2)"
    return None


def toxiproxy_binary(root: Path) -> Path:
    return root / ".tools/bin/toxiproxy-server"


def namespaces() -> list[str]:
    res = _run(["ip", "netns", "list"], check=False)
    return [line.split()[0] for line in res.stdout.splitlines() if line.strip()]


def _pids_in(ns: str) -> list[int]:
    res = _run(["ip", "netns", "pids", ns], check=False)
    return [int(p) for p in res.stdout.split() if p.isdigit()]


def _owner_alive(pid: int) -> bool:
    return pid > 0 and Path(f"/proc/{pid}").exists()


def remove_slot(slot: int, state_dir: Path = STATE_DIR) -> list[str]:
    """Kill what runs in lab `slot`'s namespaces, delete them and the host's end of its admin
    link, forget its state file. Returns the namespaces removed."""
    names = [ns for ns in namespaces() if (m := NETNS.match(ns)) and int(m.group(1)) == slot]
    for ns in names:
        for pid in _pids_in(ns):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    for ns in names:
        deadline = time.monotonic() + 5
        while _pids_in(ns) and time.monotonic() < deadline:
            time.sleep(0.05)
        _run(["ip", "netns", "del", ns], check=False)
    _run(["ip", "link", "del", f"cb{slot}h"], check=False)
    (state_dir / f"cb{slot}.json").unlink(missing_ok=True)
    return names


def remove_leftovers(state_dir: Path = STATE_DIR) -> list[str]:
    """Remove every lab whose owner process is gone (or that has no state file): what a killed
    run left behind. Returns one line per lab removed."""
    removed = []
    slots = {int(m.group(1)) for ns in namespaces() if (m := NETNS.match(ns))}
    slots |= {int(p.stem[2:]) for p in state_dir.glob("cb*.json") if p.stem[2:].isdigit()}
    for slot in sorted(slots):
        owner = 0
        try:
            owner = int(json.loads((state_dir / f"cb{slot}.json").read_text()).get("owner", 0))
        except (OSError, ValueError):
            pass
        if _owner_alive(owner):
            continue
        names = remove_slot(slot, state_dir)
        removed.append(f"removed network lab cb{slot} left by pid {owner or '?'} "
                       f"({', '.join(names) or 'no namespaces left'})")
    return removed


@dataclass
class Link:
    """One worker's link: its namespace and the address it dials control at."""

    worker: str
    netns: str
    index: int
    control_side: str
    worker_side: str
    dial: str = ""


@dataclass
class Lab:
    """A lab made by `create`: control's namespace, a link per worker, the admin address."""

    slot: int
    profile: Profile
    state_dir: Path
    links: dict[str, Link] = field(default_factory=dict)
    control_port: int = 0
    proxy_pid: int = 0
    measured: dict[str, dict] = field(default_factory=dict)

    @property
    def net(self) -> int:
        return 200 + self.slot

    @property
    def control_ns(self) -> str:
        return f"cb{self.slot}-ctl"

    @property
    def admin_control(self) -> str:
        return f"10.{self.net}.0.1"

    def hosts(self) -> list[str]:
        """The addresses control answers to in this lab (its --allow-host list)."""
        return [self.admin_control] + [link.control_side for link in self.links.values()]

    def control_addr(self) -> str:
        """Where the harness dials control (over the unshaped admin link)."""
        return f"{self.admin_control}:{self.control_port}"

    # ---- setup ----------------------------------------------------------------------------------

    def _state(self) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        (self.state_dir / f"cb{self.slot}.json").write_text(json.dumps({
            "owner": os.getpid(), "profile": asdict(self.profile),
            "namespaces": [self.control_ns] + [link.netns for link in self.links.values()]}) + "\n")

    def _veth(self, a: str, a_ns: str | None, a_addr: str, b: str, b_ns: str, b_addr: str) -> None:
        _run(["ip", "link", "add", a, "type", "veth", "peer", "name", b])
        for dev, ns, addr in ((a, a_ns, a_addr), (b, b_ns, b_addr)):
            pre = ["ip", "-n", ns] if ns else ["ip"]
            if ns:
                _run(["ip", "link", "set", dev, "netns", ns])
            _run(pre + ["addr", "add", f"{addr}/24", "dev", dev])
            _run(pre + ["link", "set", dev, "up"])

    def _shape(self, ns: str, dev: str, mbit: float | None) -> None:
        if mbit is None:
            return
        rate_bps = mbit * 1e6
        # Burst: 2 ms of the rate, at least two full frames (tbf needs one; larger GSO packets
        # it segments). A bigger bucket would send a small payload at line rate: with 8 frames,
        # 100 beers as JSON (51 kB) went up a 3g link in size/rate + RTT − 14 %, and 5 kB in
        # one RTT. Queue: 500 ms of the rate (a mobile link's deep buffer).
        burst = max(2 * 1514, int(rate_bps / 8 * 0.002))
        _run(["tc", "-n", ns, "qdisc", "add", "dev", dev, "root", "tbf", "rate", f"{int(rate_bps)}bit",
              "burst", str(burst), "latency", "500ms"])

    def setup(self, workers: list[str]) -> None:
        self._state()
        _run(["ip", "netns", "add", self.control_ns])
        _run(["ip", "-n", self.control_ns, "link", "set", "lo", "up"])
        self._veth(f"cb{self.slot}h", None, f"10.{self.net}.0.2",
                   f"cb{self.slot}a", self.control_ns, self.admin_control)
        for i, worker in enumerate(workers, start=1):
            link = Link(worker, f"cb{self.slot}-w{i}", i, f"10.{self.net}.{i}.1", f"10.{self.net}.{i}.2")
            self.links[worker] = link
            self._state()
            _run(["ip", "netns", "add", link.netns])
            _run(["ip", "-n", link.netns, "link", "set", "lo", "up"])
            self._veth(f"cb{self.slot}c{i}", self.control_ns, link.control_side,
                       f"cb{self.slot}w{i}", link.netns, link.worker_side)
            self._shape(self.control_ns, f"cb{self.slot}c{i}", self.profile.down_mbit)
            self._shape(link.netns, f"cb{self.slot}w{i}", self.profile.up_mbit or self.profile.down_mbit)

    def start_proxies(self, control_port: int, toxiproxy: Path, log: Path) -> None:
        """Point every worker link at control's port: through toxiproxy when the profile delays,
        else straight at it."""
        self.control_port = control_port
        if not self.profile.delayed:
            for link in self.links.values():
                link.dial = f"{link.control_side}:{control_port}"
            return
        if not toxiproxy.exists():
            raise LabError(f"profile {self.profile.name} delays its links with toxiproxy, and "
                           f"{toxiproxy} is not installed (make setup installs it)")
        api = f"{self.admin_control}:{TOXIPROXY_API_PORT}"
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "ab") as out:
            proc = subprocess.Popen(["ip", "netns", "exec", self.control_ns, str(toxiproxy),
                                     "-host", self.admin_control, "-port", str(TOXIPROXY_API_PORT)],
                                    stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        self.proxy_pid = proc.pid
        deadline = time.monotonic() + 15
        while True:
            try:
                _api(api, "GET", "/version")
                break
            except (OSError, urllib.error.URLError):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise LabError(f"toxiproxy did not start (log {log})") from None
                time.sleep(0.1)
        jitter = int(round(self.profile.jitter_ms))
        for name, link in self.links.items():
            listen = f"{link.control_side}:{PROXY_PORT}"
            _api(api, "POST", "/proxies", {"name": name, "listen": listen,
                                            "upstream": f"{link.control_side}:{control_port}", "enabled": True})
            for stream in ("downstream", "upstream"):
                _api(api, "POST", f"/proxies/{name}/toxics", {
                    "name": f"{stream}-latency", "type": "latency", "stream": stream, "toxicity": 1.0,
                    "attributes": {"latency": self.profile.one_way_ms, "jitter": jitter}})
            link.dial = listen

    def environment(self) -> dict:
        """What the run records: the profile as configured and each link as measured."""
        p = self.profile
        return {"profile": p.name, "describe": p.describe(), "note": p.note,
                "configured": {"down_mbit": p.down_mbit, "up_mbit": p.up_mbit or p.down_mbit,
                               "rtt_ms": p.rtt_ms, "jitter_ms": p.jitter_ms,
                               "delay": "toxiproxy latency toxic" if p.delayed else "none",
                               "rate": "tc tbf" if p.down_mbit else "none"},
                "links": {w: {"netns": link.netns, "dial": link.dial, **self.measured.get(w, {})}
                          for w, link in self.links.items()}}

    def teardown(self) -> None:
        if self.proxy_pid:
            try:
                os.killpg(self.proxy_pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        remove_slot(self.slot, self.state_dir)


def _api(base: str, method: str, path: str, body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://{base}{path}", data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            text = resp.read().decode()
    except urllib.error.HTTPError as exc:
        raise LabError(f"toxiproxy {method} {path}: HTTP {exc.code}: {exc.read().decode(errors='replace')}") from None
    return json.loads(text) if text.strip().startswith(("{", "[")) else {}


def create(prof: Profile, workers: list[str], log=print, state_dir: Path = STATE_DIR) -> Lab:
    """Remove leftovers, take a free slot, make the namespaces and links. On failure nothing
    is left behind."""
    if (why := available()):
        raise LabError(f"cannot make a network lab: {why}")
    state_dir.mkdir(parents=True, exist_ok=True)
    # One lab is chosen at a time: two runs starting together must not take the same slot.
    with open(state_dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for line in remove_leftovers(state_dir):
            log(line)
        used = {int(m.group(1)) for ns in namespaces() if (m := NETNS.match(ns))}
        used |= {int(p.stem[2:]) for p in state_dir.glob("cb*.json") if p.stem[2:].isdigit()}
        free = [s for s in range(1, MAX_SLOTS + 1) if s not in used]
        if not free:
            raise LabError(f"all {MAX_SLOTS} network lab slots are in use (ip netns list)")
        lab = Lab(free[0], prof, state_dir)
        try:
            lab.setup(workers)
        except BaseException:
            lab.teardown()
            raise
    return lab


def expected_transfer_s(size_bytes: int, mbit: float | None, rtt_ms: float) -> float:
    """The time a link of `mbit` and `rtt_ms` needs for one request carrying `size_bytes` and its
    answer: one round trip plus the bytes at the rate."""
    rate = (size_bytes * 8 / (mbit * 1e6)) if mbit else 0.0
    return rate + rtt_ms / 1000
