"""Every Rust build asks for one feature set of each shared dependency (rust/workspace-hack), so
that `cargo test` after `cargo build` and a user's worker build (`-p codecbench-worker`, userrun.py)
reuse the compiled dependencies instead of recompiling them with other features."""
import subprocess
from pathlib import Path

RUST = Path(__file__).resolve().parents[2] / "rust"


def features(*args: str) -> dict[str, str]:
    """package (name and version) -> its resolved features, as `cargo tree` resolves them."""
    out = subprocess.run(["cargo", "tree", "--offline", "--locked", "-e", *args, "-f", "{p}\t{f}", "--prefix", "none"],
                         cwd=RUST, capture_output=True, text=True, timeout=300, check=True).stdout
    seen: dict[str, str] = {}
    for line in out.splitlines():
        if "\t" in line and not line.endswith("(*)"):
            package, feats = line.split("\t", 1)
            seen[package.removesuffix(" (*)")] = feats
    return seen


def differing(base: dict[str, str], other: dict[str, str], skip: str = "codecbench-") -> list[str]:
    return sorted(f"{p}: {base[p]!r} vs {other[p]!r}" for p in base.keys() & other.keys()
                  if base[p] != other[p] and not p.startswith(skip))


def test_tests_build_the_dependencies_with_the_features_of_the_release_build():
    build = features("normal", "--workspace")
    test = features("normal,dev", "--workspace")
    assert not differing(build, test), "dev-dependencies add features: add them to rust/workspace-hack"


def test_a_users_worker_build_reuses_the_workspaces_dependencies():
    build = features("normal", "--workspace")
    user = features("normal", "-p", "codecbench-worker", "--features", "codecbench-proto/user-datasets")
    assert not differing(build, user), "control adds features the worker alone lacks: add them to rust/workspace-hack"


def test_a_feature_difference_is_reported():
    assert differing({"tracing v0.1": "default,log", "codecbench-proto v0.1.0": ""},
                     {"tracing v0.1": "default", "codecbench-proto v0.1.0": "user-datasets"}) \
        == ["tracing v0.1: 'default,log' vs 'default'"]
