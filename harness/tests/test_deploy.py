"""deploy/: the Kubernetes manifests against the Kubernetes schemas (offline, kubernetes-validate),
and against what a schema cannot see: the images `make images` builds, the flags each component
really accepts (asked of the built programs themselves), the token Secret, and the Service port.
No cluster is needed; docs/DEPLOY.md says what these checks do not cover."""

from __future__ import annotations

import copy
import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import kubernetes_validate
import pytest
import yaml

from codecbench import processes
from codecbench.cli import build_parser

ROOT = processes.repo_root()
K8S = ROOT / "deploy/k8s"
IMAGES_DIR = ROOT / "deploy/images"
ART = processes.Artifacts(ROOT)
# The oldest Kubernetes these manifests are meant for, and the newest kubernetes-validate knows.
K8S_VERSIONS = ("1.30.0", "1.37.0")
IMAGE = re.compile(r"^localhost/codecbench/(?P<name>[a-z0-9-]+):(?P<tag>[\w.-]+)$")


def load(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]


def kustomization() -> dict:
    return yaml.safe_load((K8S / "kustomization.yaml").read_text())


def generated_secret() -> dict:
    """The Secret kustomize's secretGenerator makes (the token file itself is never committed)."""
    gen, = kustomization()["secretGenerator"]
    key, = gen["files"]
    return {"apiVersion": "v1", "kind": "Secret", "type": gen.get("type", "Opaque"),
            "metadata": {"name": gen["name"], "namespace": kustomization()["namespace"]},
            "data": {key: "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="}}


def manifests() -> list[tuple[str, dict]]:
    """Every resource: the kustomization's, the generated Secret, and the Jobs."""
    docs = [(f, d) for f in kustomization()["resources"] for d in load(K8S / f)]
    docs.append(("kustomization.yaml secretGenerator", generated_secret()))
    docs += [(str(f.relative_to(K8S)), d) for f in sorted((K8S / "jobs").glob("*.yaml")) for d in load(f)]
    return docs


def workloads() -> list[tuple[str, dict]]:
    """(name, pod spec) of every Deployment and Job."""
    out = []
    for _, d in manifests():
        if d["kind"] in ("Deployment", "Job"):
            out.append((d["metadata"].get("name") or d["metadata"]["generateName"], d["spec"]["template"]["spec"]))
    return out


def containers(pod: dict) -> list[dict]:
    return pod.get("initContainers", []) + pod["containers"]


def find(kind: str, name: str) -> dict:
    found = [d for _, d in manifests() if d["kind"] == kind and d["metadata"].get("name") == name]
    assert len(found) == 1, f"{kind}/{name}: {len(found)} found"
    return found[0]


def flag(args: list[str], name: str) -> list[str]:
    """Every value given to `--name VALUE` in an argv."""
    return [args[i + 1] for i, a in enumerate(args[:-1]) if a == name]


def control_container() -> dict:
    return find("Deployment", "codecbench-control")["spec"]["template"]["spec"]["containers"][0]


def containerfile(name: str) -> str:
    return (IMAGES_DIR / f"{name}.Containerfile").read_text()


def image_name(container: dict) -> str:
    m = IMAGE.match(container["image"])
    assert m, f"{container['name']}: image {container['image']!r} is not localhost/codecbench/NAME:TAG"
    return m["name"]


def copies(name: str) -> list[tuple[str, str]]:
    """(source in the repo, destination in the image) of every COPY in an image's Containerfile."""
    return [tuple(line.split()[1:3]) for line in containerfile(name).splitlines() if line.startswith("COPY ")]


def in_repo(image: str, path: str) -> Path:
    """The repo file an absolute path inside `image` was copied from."""
    for src, dest in copies(image):
        if path == dest or path.startswith(dest.rstrip("/") + "/"):
            return ROOT / (src + path[len(dest):])
    raise AssertionError(f"{path} is not copied into codecbench/{image} ({IMAGES_DIR / (image + '.Containerfile')})")


def made_images() -> list[str]:
    m = re.search(r"^IMAGES :=(.*)$", (ROOT / "Makefile").read_text(), re.M)
    assert m, "the Makefile has no IMAGES := line"
    return m[1].split()


# --- the Kubernetes schemas -------------------------------------------------------------------

@pytest.mark.parametrize("version", K8S_VERSIONS)
def test_every_manifest_is_valid_for_kubernetes(version):
    docs = manifests()
    assert {d["kind"] for _, d in docs} >= {"Namespace", "PersistentVolumeClaim", "Deployment", "Service", "Secret", "Job"}
    for where, doc in docs:
        try:
            # strict: a field the schema does not have (a typo) is an error, not silently dropped.
            kubernetes_validate.validate(doc, version, strict=True)
        except kubernetes_validate.ValidationError as e:
            path = ".".join(map(str, e.absolute_path))
            pytest.fail(f"{where}: {doc['kind']} {doc['metadata']}: {path}: {e.message}")


def test_a_broken_manifest_is_refused_with_the_field_named(tmp_path):
    """The validation above can fail: mutated copies of control.yaml are refused at the right path."""
    text = (K8S / "control.yaml").read_text()
    assert text.count("containerPort: 7600") == 1 and text.count("imagePullPolicy:") == 1
    cases = {
        "wrong-type.yaml": (text.replace("containerPort: 7600", "containerPort: seventy-six-hundred"),
                            "spec.template.spec.containers.0.ports.0.containerPort", "is not of type 'integer'"),
        "typo.yaml": (text.replace("imagePullPolicy:", "imagePulPolicy:"),
                      "spec.template.spec.containers.0", "'imagePulPolicy' was unexpected"),
    }
    for file, (broken, path, message) in cases.items():
        (tmp_path / file).write_text(broken)
        deployment, = [d for d in load(tmp_path / file) if d["kind"] == "Deployment"]
        with pytest.raises(kubernetes_validate.ValidationError) as caught:
            kubernetes_validate.validate(deployment, K8S_VERSIONS[0], strict=True)
        assert ".".join(map(str, caught.value.absolute_path)) == path, file
        assert message in caught.value.message, (file, caught.value.message)


def test_the_kustomization_lists_every_manifest_and_the_jobs_stand_apart():
    listed = kustomization()["resources"]
    on_disk = sorted(p.name for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")
    assert sorted(listed) == on_disk
    # Jobs are created per run (generateName), so they carry the namespace themselves.
    for f in (K8S / "jobs").glob("*.yaml"):
        for d in load(f):
            assert d["metadata"]["namespace"] == kustomization()["namespace"], f
            assert "generateName" in d["metadata"] and "name" not in d["metadata"], f


# --- images -----------------------------------------------------------------------------------

def test_every_image_named_is_one_make_images_builds_and_every_built_one_is_used():
    built = made_images()
    used = set()
    for name, pod in workloads():
        for c in containers(pod):
            image = image_name(c)
            assert image in built, f"{name}: {c['image']} is not built by make images ({built})"
            assert (IMAGES_DIR / f"{image}.Containerfile").exists(), image
            # Loaded into the node's runtime, never pulled (there is no registry behind localhost/).
            assert c.get("imagePullPolicy") == "IfNotPresent", name
            used.add(image)
    assert used == set(built), f"built but never deployed: {set(built) - used}"


def test_every_containerfile_starts_from_the_base_and_copies_what_exists():
    for image in made_images():
        text = containerfile(image)
        assert "FROM ${BASE}" in text, image
        for src, _ in copies(image):
            assert (ROOT / src).exists(), f"{image}: COPY {src}: not in the repo (make build makes it?)"


def test_the_manifests_run_each_images_own_entrypoint():
    for name, pod in workloads():
        for c in containers(pod):
            m = re.search(r"^ENTRYPOINT (.*)$", containerfile(image_name(c)), re.M)
            assert m and json.loads(m[1]) == c["command"], f"{name}: command {c['command']} is not the image's ENTRYPOINT"


def test_the_browser_image_holds_every_package_the_driver_imports():
    roots = re.search(r'^DRIVER_PACKAGES="([^"]+)"', (IMAGES_DIR / "build.sh").read_text(), re.M).group(1).split()
    out = subprocess.run([sys.executable, str(IMAGES_DIR / "node_closure.py"), str(ROOT / "web/package-lock.json"),
                          *roots], capture_output=True, text=True, check=True).stdout.split()
    staged = {p.removeprefix("node_modules/") for p in out}
    imports = set()
    for f in (ROOT / "web/driver").glob("*.mjs"):
        imports |= set(re.findall(r'^import .* from "([^".][^"]*)";', f.read_text(), re.M))
    # A package's subpath ("@bufbuild/protobuf/wkt") is its package's.
    bare = {"/".join(i.split("/")[:2 if i.startswith("@") else 1]) for i in imports if not i.startswith("node:")}
    assert bare and bare <= staged, f"the driver imports {bare - staged}, which build.sh does not stage"


# --- the flags each component accepts ---------------------------------------------------------

def run(argv: list[str], env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env)


def container(deployment: str) -> dict:
    return find("Deployment", deployment)["spec"]["template"]["spec"]["containers"][0]


def test_control_accepts_its_manifest_command_line():
    if (why := ART.missing("control")):
        pytest.skip(f"{why} (the Makefile builds it before tests)")
    c = control_container()
    binary = in_repo("control", c["command"][0])
    assert binary == ART.control
    # clap parses (and type-checks: a socket address, a number) every argument before `--help`
    # answers, so an unknown flag or a bad value ends with exit 2 instead.
    ok = run([str(binary), *c["args"], "--help"])
    assert ok.returncode == 0 and "Usage:" in ok.stdout, ok.stderr
    bad = run([str(binary), *c["args"], "--no-such-flag", "--help"])
    assert bad.returncode == 2 and "--no-such-flag" in bad.stderr
    # The flags processes.py gives a local control are all in the manifest too.
    assert {"--listen", "--state-dir", "--web-dir"} <= set(c["args"])


def test_the_rust_worker_accepts_its_manifest_command_line():
    if (why := ART.missing("rust")):
        pytest.skip(f"{why} (the Makefile builds it before tests)")
    c = container("codecbench-worker-rust")
    binary = in_repo("worker-rust", c["command"][0])
    assert binary == ART.rust_worker
    ok = run([str(binary), *c["args"], "--help"])
    assert ok.returncode == 0 and "Usage:" in ok.stdout, ok.stderr
    assert run([str(binary), *c["args"], "--no-such-flag", "--help"]).returncode == 2


def test_the_java_worker_accepts_its_manifest_command_line():
    if (why := ART.missing("java")) or not shutil.which("java"):
        pytest.skip(f"{why or 'no java on PATH'} (the Makefile builds it before tests)")
    c = container("codecbench-worker-java")
    assert c["command"][:2] == ["java", "-jar"]
    jar = in_repo("worker-java", c["command"][2])
    assert jar == ART.java_jar
    # Options.parse reads the flags in order and answers --help with the usage and exit 0; an
    # unknown flag before it is exit 2.
    ok = run(["java", "-jar", str(jar), *c["args"], "--help"])
    assert ok.returncode == 0 and "usage: java -jar codecbench-java-worker.jar" in ok.stderr, ok.stderr
    bad = run(["java", "-jar", str(jar), *c["args"], "--no-such-flag"])
    assert bad.returncode == 2 and "unknown argument '--no-such-flag'" in bad.stderr, bad.stderr


def test_the_browser_driver_accepts_its_manifest_command_line():
    if not ART.browser_driver.exists() or not (ROOT / "web/node_modules/puppeteer-core").exists() or not shutil.which("node"):
        pytest.skip("web/driver or web/node_modules or node absent (the Makefile installs them before tests)")
    c = container("codecbench-worker-browser")
    assert c["command"][0] == "node"
    driver = in_repo("worker-browser", c["command"][1])
    assert driver == ART.browser_driver
    # The driver checks its flags (parseArgs, strict), then that --control and --log are given
    # and --count is a whole number, then --trials; a bad --trials added last is refused only
    # once everything before it passed, and before Chromium starts.
    res = run(["node", str(driver), *c["args"], "--trials", "not-a-mode"])
    assert res.returncode == 2 and "--trials must be fresh-browser or web-worker, got not-a-mode" in res.stderr, res.stderr
    bad = run(["node", str(driver), *c["args"], "--no-such-flag"])
    assert bad.returncode == 2 and "--no-such-flag" in bad.stderr, bad.stderr


def test_the_job_runs_a_scenario_with_flags_the_cli_accepts():
    job, = [d for _, d in manifests() if d["kind"] == "Job"]
    c, = job["spec"]["template"]["spec"]["containers"]
    assert c["command"] == ["codecbench"]
    args = build_parser().parse_args(c["args"])  # exits (SystemExit 2) on anything it does not know
    assert args.cmd == "run" and not args.local
    scenario = in_repo("harness", args.scenario)
    assert scenario.is_file(), scenario
    assert args.wait_workers and args.wait_workers > 0, "workers of a fresh deployment may still be attaching"


# --- the parts agree with each other ----------------------------------------------------------

def test_the_token_secret_is_mounted_by_control_every_worker_and_the_job():
    secret = generated_secret()
    key, = secret["data"]
    names = set()
    for name, pod in workloads():
        names.add(name)
        volumes = {v["name"]: v for v in pod.get("volumes", [])}
        for c in containers(pod):
            mounts = {m["mountPath"]: m for m in c.get("volumeMounts", [])}
            env = {e["name"]: e.get("value") for e in c.get("env", [])}
            given = flag(c.get("args", []), "--token-file") + ([env["CODECBENCH_TOKEN_FILE"]] if "CODECBENCH_TOKEN_FILE" in env else [])
            assert len(given) == 1, f"{name}/{c['name']}: the token file is given {len(given)} times"
            directory, file = given[0].rsplit("/", 1)
            assert file == key, f"{name}: {given[0]} is not the Secret's key {key!r}"
            mount = mounts.get(directory)
            assert mount and mount.get("readOnly"), f"{name}: nothing read-only mounted at {directory}"
            assert volumes[mount["name"]].get("secret", {}).get("secretName") == secret["metadata"]["name"], name
    assert names >= {"codecbench-control", "codecbench-worker-rust", "codecbench-worker-java",
                     "codecbench-worker-browser", "codecbench-run-"}


def test_the_service_port_is_controls_listen_port_and_every_client_dials_it():
    c = control_container()
    listen, = flag(c["args"], "--listen")
    port = int(listen.rsplit(":", 1)[1])
    service = find("Service", "codecbench-control")
    sport, = service["spec"]["ports"]
    assert sport["port"] == port
    named = {p["name"]: p["containerPort"] for p in c["ports"]}
    assert named.get(sport["targetPort"], sport["targetPort"]) == port
    for probe in ("readinessProbe", "livenessProbe"):
        target = c[probe]["tcpSocket"]["port"]
        assert named.get(target, target) == port, probe
    pod_labels = find("Deployment", "codecbench-control")["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= pod_labels.items()
    # Every worker and the Job dial the Service by a name control answers to (its host guard).
    allowed = flag(c["args"], "--allow-host")
    namespace = kustomization()["namespace"]
    svc = service["metadata"]["name"]
    assert set(allowed) == {svc, f"{svc}.{namespace}.svc", f"{svc}.{namespace}.svc.cluster.local"}
    for name, pod in workloads():
        if name == "codecbench-control":
            continue
        for cc in containers(pod):
            urls = flag(cc["args"], "--control")
            env = {e["name"]: e.get("value") for e in cc.get("env", [])}
            if "CODECBENCH_SECURE_ORIGIN" in env:
                urls.append(env["CODECBENCH_SECURE_ORIGIN"])
            assert urls, f"{name}: no --control"
            for url in urls:
                u = urlsplit(url)
                assert (u.scheme, u.hostname, u.port) == ("http", svc, port), f"{name}: {url}"
                assert u.hostname in allowed


def test_the_browser_pages_origin_is_treated_as_secure():
    c = container("codecbench-worker-browser")
    env = {e["name"]: e.get("value") for e in c["env"]}
    control, = flag(c["args"], "--control")
    # The page's origin is the --control URL's; the driver's Chromium flags read this variable.
    assert env["CODECBENCH_SECURE_ORIGIN"] == control.rstrip("/")
    flags = (ROOT / "web/driver/flags.mjs").read_text()
    assert "--unsafely-treat-insecure-origin-as-secure=${process.env.CODECBENCH_SECURE_ORIGIN}" in flags
    assert ("web/driver", "/opt/codecbench/web/driver") in copies("worker-browser")


def test_every_container_is_guaranteed_qos_with_whole_cpus():
    for name, pod in workloads():
        for c in containers(pod):
            r = c["resources"]
            assert r["requests"] == r["limits"], f"{name}: requests != limits"
            assert set(r["limits"]) >= {"cpu", "memory"}, name
            assert re.fullmatch(r"[1-9]\d*", str(r["limits"]["cpu"])), f"{name}: cpu {r['limits']['cpu']} is not whole CPUs"


def test_the_blob_quota_fits_the_state_volume():
    quota_mib = int(flag(control_container()["args"], "--blob-quota-mib")[0])
    storage = find("PersistentVolumeClaim", "codecbench-control-state")["spec"]["resources"]["requests"]["storage"]
    m = re.fullmatch(r"(\d+)Gi", storage)
    assert m, storage
    # Room beside the blobs for SQLite and unfinished uploads.
    assert quota_mib <= int(m[1]) * 1024 * 0.9
    state, = flag(control_container()["args"], "--state-dir")
    assert {"name": "state", "mountPath": state} in control_container()["volumeMounts"]
