"""Print the web/node_modules folders the browser driver needs: puppeteer-core and everything it
depends on, resolved from web/package-lock.json the way Node resolves them (nearest node_modules
first, then each parent's). The image gets these ~60 MB instead of all 270 MB of node_modules
(vite, vitest, typescript, buf... are build and test tools only).

    python3 deploy/images/node_closure.py web/package-lock.json puppeteer-core
"""

from __future__ import annotations

import json
import sys


def resolve(packages: dict, frm: str, name: str) -> str | None:
    """The lock-file key Node would load for `name` required from package folder `frm`."""
    here = frm
    while True:
        candidate = f"{here}/node_modules/{name}" if here else f"node_modules/{name}"
        if candidate in packages:
            return candidate
        if not here:
            return None
        cut = here.rfind("/node_modules/")
        here = here[:cut] if cut >= 0 else ""


def closure(packages: dict, roots: list[str]) -> list[str]:
    seen: set[str] = set()
    stack = [f"node_modules/{r}" for r in roots]
    while stack:
        key = stack.pop()
        if key in seen:
            continue
        if key not in packages:
            raise SystemExit(f"node_closure: {key} is not in the lock file")
        seen.add(key)
        entry = packages[key]
        optional_peers = {n for n, meta in entry.get("peerDependenciesMeta", {}).items() if meta.get("optional")}
        wanted = {**entry.get("dependencies", {}), **entry.get("optionalDependencies", {}),
                  **entry.get("peerDependencies", {})}
        for name in wanted:
            found = resolve(packages, key, name)
            if found is None:
                # An optional peer or optional dependency npm did not install: Node does without.
                if name in optional_peers or name in entry.get("optionalDependencies", {}):
                    continue
                raise SystemExit(f"node_closure: {key} needs {name}, which the lock file does not have")
            stack.append(found)
    # A nested folder is copied with its parent; list only the outermost ones.
    return sorted(k for k in seen if not any(k.startswith(p + "/") for p in seen))


def main() -> None:
    lock_path, *roots = sys.argv[1:]
    packages = json.load(open(lock_path))["packages"]
    for key in closure(packages, roots):
        print(key)


if __name__ == "__main__":
    main()
