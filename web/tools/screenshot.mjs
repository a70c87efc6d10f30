// A report as a reader sees it: headless Chromium opens a report.html (or any page) and saves PNGs,
// the first screen and, with --full, the whole page. Used to look at a real report before saying
// what its first screen shows (issue 31), and by nothing at run time.
//
//   node web/tools/screenshot.mjs results/<run>/report.html OUT.png [--width 1280 --height 800] [--full]
//
// Chromium is Debian's (the root Makefile installs it), or $CODECBENCH_CHROMIUM.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import puppeteer from "puppeteer-core";

const args = process.argv.slice(2);
const flag = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return dflt;
  const v = Number(args[i + 1]);
  args.splice(i, 2);
  if (!(v > 0)) throw new Error(`--${name} needs a positive number`);
  return v;
};
const width = flag("width", 1280);
const height = flag("height", 800);
const full = args.includes("--full");
const [page, out] = args.filter((a) => a !== "--full");
if (!page || !out) {
  console.error("usage: node web/tools/screenshot.mjs PAGE.html OUT.png [--width W --height H] [--full]");
  process.exit(64);
}
if (!existsSync(page)) {
  console.error(`${page}: no such file`);
  process.exit(66);
}
const chromium = process.env.CODECBENCH_CHROMIUM || "/usr/bin/chromium";
const profile = mkdtempSync(join(tmpdir(), "codecbench-screenshot-"));
const browser = await puppeteer.launch({
  executablePath: chromium, headless: true, userDataDir: profile,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
});
try {
  const tab = await browser.newPage();
  await tab.setViewport({ width, height });
  await tab.goto(pathToFileURL(resolve(page)).href, { waitUntil: "load" });
  await tab.screenshot({ path: out, fullPage: false });
  console.log(`${out}: first screen, ${width}x${height}`);
  if (full) {
    const whole = out.replace(/\.png$/, "") + "-full.png";
    await tab.screenshot({ path: whole, fullPage: true });
    const h = await tab.evaluate(() => document.documentElement.scrollHeight);
    console.log(`${whole}: the whole page, ${width}x${h} (${(h / height).toFixed(1)} screens)`);
  }
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
