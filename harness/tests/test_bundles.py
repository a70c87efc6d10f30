"""Bundle size per browser codec (issue 31 item 5): bundles.py reads web/dist/bundle-sizes.json
(web/tools/bundle-sizes.mjs), describes a codec, writes codecs/README.md's table, and the browser's
leaderboard rows carry the bytes a codec adds to a page."""
import json
import math

import pandas as pd
import pytest

from codecbench import bundles, catalogue
from codecbench import leaderboard as L
from codecbench.display import leaderboard_table
from codecbench.results import CELL_COLUMNS
from test_leaderboard import frame, row

# The shape web/tools/bundle-sizes.mjs writes (two codecs).
DOC = {
    "what": "…",
    "tool": {"vite": "8.3.8", "rolldown": "1.2.19", "minifier": "vite build.minify (Oxc)", "target": "es2022",
             "node": "v20.20.2"},
    "gzip": {"implementation": "node:zlib gzipSync", "level": 9, "zlib": "1.3.1"},
    "baseline": {"imports": ["src/datasets/registry.ts { datasetById }"], "minifiedBytes": 112667, "gzipBytes": 31780,
                 "libraries": {"@bufbuild/protobuf": {"version": "2.17.0", "renderedBytes": 197878}},
                 "modules": {"src/datasets/registry.ts": 1555}},
    "codecs": {
        "json": {"module": "src/codecs/json.ts", "addedMinifiedBytes": 7299, "addedGzipBytes": 2400,
                 "entryMinifiedBytes": 119966, "entryGzipBytes": 34180, "libraries": {},
                 "modules": {"src/codecs/json.ts": 5807}, "uses": ["@bufbuild/protobuf 2.17.0"]},
        "bson": {"module": "src/codecs/bson.ts", "addedMinifiedBytes": 85800, "addedGzipBytes": 25412,
                 "entryMinifiedBytes": 198467, "entryGzipBytes": 57192,
                 "libraries": {"bson": {"version": "7.3.4", "renderedBytes": 120000, "inBaseline": False},
                               "@bufbuild/protobuf": {"version": "2.17.0", "renderedBytes": 10, "inBaseline": True}},
                 "modules": {"src/codecs/bson.ts": 4000}, "uses": ["@bufbuild/protobuf 2.17.0", "bson 7.3.4"]},
    },
}


@pytest.fixture
def built(tmp_path, monkeypatch):
    """A repo whose web/dist/bundle-sizes.json is DOC."""
    path = tmp_path / "web" / "dist" / "bundle-sizes.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(DOC))
    monkeypatch.setattr(bundles, "REPO", tmp_path)
    monkeypatch.setattr(bundles, "PATH", path)
    return path


@pytest.fixture
def missing(tmp_path, monkeypatch):
    monkeypatch.setattr(bundles, "REPO", tmp_path)
    monkeypatch.setattr(bundles, "PATH", tmp_path / "web" / "dist" / "bundle-sizes.json")


def test_a_missing_file_says_how_to_build_it(missing, capsys):
    with pytest.raises(bundles.NotBuilt, match=r"^web/dist/bundle-sizes\.json is not built: make web$"):
        bundles.load()
    assert bundles.describe("json") == "bundle: unknown (web/dist/bundle-sizes.json is not built: make web)"
    assert bundles.gzip_by_codec() == {}
    assert bundles.main([]) == 1
    assert capsys.readouterr().err == "web/dist/bundle-sizes.json is not built: make web\n"


def test_an_unreadable_file_says_so_and_the_leaderboards_go_on(built):
    built.write_text(json.dumps({"codecs": {"json": {"module": "src/codecs/json.ts"}}}))
    with pytest.raises(bundles.NotBuilt, match=r"^web/dist/bundle-sizes\.json is unreadable \(KeyError: .*\): make web$"):
        bundles.load()
    assert bundles.gzip_by_codec() == {}
    built.write_text("{not json")
    assert bundles.describe("json").startswith("bundle: unknown (web/dist/bundle-sizes.json is unreadable (JSONDecodeError")


def test_describe_names_the_bytes_and_the_libraries(built):
    assert bundles.describe("bson") == ("bundle: adds 25.4 kB gzip (85.8 kB minified) to a page: bson 7.3.4 "
                                        "(+ @bufbuild/protobuf 2.17.0 from the baseline)")
    assert bundles.describe("json") == ("bundle: adds 2.4 kB gzip (7.3 kB minified) to a page: no library of its own "
                                        "(uses @bufbuild/protobuf 2.17.0 from the baseline)")
    assert bundles.describe("avro") == "bundle: none (the browser worker has no avro codec)"
    assert bundles.gzip_by_codec() == {"json": 2400, "bson": 25412}


def test_the_readme_table_comes_from_the_json(built, tmp_path):
    table = bundles.table(bundles.load())
    assert table.splitlines()[:4] == [
        "| browser codec | adds, gzip | adds, minified | libraries it adds |", "|---|--:|--:|---|",
        "| json | 2.4 kB | 7.3 kB | no library of its own (uses @bufbuild/protobuf 2.17.0 from the baseline) |",
        "| bson | 25.4 kB | 85.8 kB | bson 7.3.4 (+ @bufbuild/protobuf 2.17.0 from the baseline) |"]
    assert "31.8 kB gzip, 112.7 kB minified" in table and "Vite 8.3.8, Rolldown 1.2.19, gzip level 9" in table
    readme = tmp_path / "README.md"
    readme.write_text(f"# codecs\n\n{bundles.BEGIN}\nold figures\n{bundles.END}\n\nafter\n")
    assert bundles.rewrite_readme(bundles.load(), readme)
    assert readme.read_text() == f"# codecs\n\n{bundles.readme_block(bundles.load())}\n\nafter\n"
    assert not bundles.rewrite_readme(bundles.load(), readme), "a second rewrite changes nothing"
    readme.write_text("no block\n")
    with pytest.raises(ValueError, match="no generated bundle-size block"):
        bundles.rewrite_readme(bundles.load(), readme)


def test_codecs_readme_shows_the_built_figures():
    """codecs/README.md's table is what `python -m codecbench.bundles --readme` writes from this build."""
    if not bundles.PATH.is_file():
        pytest.skip("web/dist/bundle-sizes.json is not built: make web")
    sizes = bundles.load()
    browser = {c["id"] for c in catalogue.load(catalogue.default_path()) if "browser" in c["implementations"]}
    assert set(sizes.bundles) == browser and all(b.gzip > 0 and b.minified > b.gzip for b in sizes.bundles.values())
    assert bundles.readme_block(sizes) in bundles.README.read_text(encoding="utf-8"), \
        "codecs/README.md is stale: .venv/bin/python -m codecbench.bundles --readme"


# ---- the browser's leaderboard rows ----------------------------------------------------------------

LANGS = {"rust-1": "rust", "browser-1": "browser"}
BUNDLE = {"json": 2400, "bson": 25412}


def run():
    return frame(row("json", "rust-1", "rust-1", enc=(200, 198, 202), dec=(400, 396, 404), size=1200),
                 row("bson", "rust-1", "rust-1", enc=(300, 297, 303), dec=(500, 495, 505), size=1300),
                 row("json", "browser-1", "browser-1", enc=(900, 890, 910), dec=(800, 790, 810), size=1200),
                 row("bson", "browser-1", "browser-1", enc=(990, 980, 1000), dec=(1600, 1580, 1620), size=1300))


def test_browser_rows_carry_the_bundle_and_other_languages_do_not():
    boards = {b.language: b for b in L.boards(run(), LANGS, 1.02, ["json", "bson"], bundle_gzip=BUNDLE)}
    browser, rust = boards["browser"], boards["rust"]
    assert L.BUNDLE not in rust.columns
    e = browser.columns[L.BUNDLE]
    assert {c: x.value for c, x in e.items()} == {"json": 2400, "bson": 25412}
    assert math.isnan(e["json"].pct_of_best) and not e["json"].best and browser.winner(L.BUNDLE) is None
    assert L.cell_text(L.BUNDLE, e["bson"]) == "25.4 kB"
    # Context, not a finding of the run: the verdict is the same with and without it.
    [plain] = [b for b in L.boards(run(), LANGS, 1.02, ["json", "bson"]) if b.language == "browser"]
    assert L.BUNDLE not in plain.columns
    assert L.verdict(browser) == L.verdict(plain) and "kB" not in L.verdict(browser)
    records = [r for r in L.to_records([browser, rust]) if r["column"] == L.BUNDLE]
    assert [(r["language"], r["codec"], r["value"], r["unit"]) for r in records] == [
        ("browser", "json", 2400, "bytes added to a page (gzip)"), ("browser", "bson", 25412, "bytes added to a page (gzip)")]
    md = L.to_markdown([rust, browser])
    assert "| language | codec | bytes/rec | bundle gz | encode | decode typed |" in md
    assert "| browser | bson | 13 B 108 % | 25.4 kB |" in md and "| rust | bson | 13 B 108 % | — |" in md
    assert "bundle gz: gzip bytes the codec adds to a web page" in md


def test_the_terminal_table_shows_the_bundle_in_browser_rows():
    from rich.console import Console

    boards = L.boards(run(), LANGS, 1.02, ["json", "bson"], bundle_gzip=BUNDLE)
    console = Console(width=200, record=True)
    console.print(leaderboard_table(boards))
    rows = [[cell.strip() for cell in line.replace("┃", "│").split("│")[1:-1]]
            for line in console.export_text().splitlines() if line.replace("┃", "│").count("│") > 3]
    header, body = rows[0], rows[1:]
    assert "bundle gz" in header and "bundle gz /rec" not in header
    at = header.index("bundle gz")
    assert [(r[0], r[1], r[at]) for r in body] == [("browser", "json", "2.4 kB"), ("", "bson", "25.4 kB"),
                                                  ("rust", "json", "—"), ("", "bson", "—")]


def test_a_codec_the_browser_did_not_measure_gets_no_bundle_row():
    s = frame(row("json", "browser-1", "browser-1", enc=(900, 890, 910), size=1200),
              row("bson", "rust-1", "rust-1", enc=(300, 297, 303), size=1300))
    [browser] = [b for b in L.boards(s, LANGS, 1.02, ["json", "bson"], bundle_gzip=BUNDLE) if b.language == "browser"]
    assert set(browser.columns[L.BUNDLE]) == {"json"}


def test_for_run_takes_the_sizes_it_is_given_and_leaves_its_boards_alone(built):
    cells = pd.DataFrame(columns=CELL_COLUMNS)
    boards, _ = L.for_run(run(), cells, LANGS, ["json", "bson"])
    assert boards and all(L.BUNDLE not in b.columns for b in boards), "no file read behind the caller's back"
    boards, _ = L.for_run(run(), cells, LANGS, ["json", "bson"], bundle_gzip=bundles.gzip_by_codec())
    [browser] = [b for b in boards if b.language == "browser"]
    assert browser.columns[L.BUNDLE]["bson"].value == 25412
    plain = L.boards(run(), LANGS, 1.02, ["json", "bson"])
    added = L.with_bundles(plain, BUNDLE)
    assert all(L.BUNDLE not in b.columns for b in plain) and [L.BUNDLE in b.columns for b in added] == [
        b.language == "browser" for b in plain]


def test_the_terminal_leaderboards_read_the_built_sizes(built):
    from rich.console import Console

    from codecbench.display import print_leaderboards

    console = Console(width=200, record=True)
    boards = L.boards(run(), LANGS, 1.02, ["json", "bson"])
    print_leaderboards(boards, {}, out=console)
    text = " ".join(console.export_text().split())
    assert "│ 25.4 kB │" in text and "bundle gz: gzip bytes the codec adds to a web page" in text
    assert all(L.BUNDLE not in b.columns for b in boards), "the caller's boards are not changed"


def test_the_terminal_leaderboards_without_a_build_have_no_bundle_column(missing):
    from rich.console import Console

    from codecbench.display import print_leaderboards

    console = Console(width=200, record=True)
    print_leaderboards(L.boards(run(), LANGS, 1.02, ["json", "bson"]), {}, out=console)
    assert "bundle" not in console.export_text()



def test_codecs_lists_what_each_browser_codec_adds_to_a_page(built, capsys):
    # Without control the catalogue alone, and the built sizes below it (text and --json).
    from codecbench.cli import main

    assert main(["--control", "127.0.0.1:9", "codecs"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "browser bundles (what each codec adds to a page, this build of web/):" in out
    assert "bson adds 25.4 kB gzip (85.8 kB minified) to a page: bson 7.3.4" in out
    assert main(["--control", "127.0.0.1:9", "codecs", "--json"]) == 0
    assert '"bundleGzipBytes"' in capsys.readouterr().out
