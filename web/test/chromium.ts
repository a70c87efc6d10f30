import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import puppeteer, { type Browser } from "puppeteer-core";

// Headless Chromium for tests, in a fresh profile, without sandbox, GPU or background network (a
// browser worker's own launch flags are web/driver/flags.mjs).

export const chromiumPath = process.env.CODECBENCH_CHROMIUM || "/usr/bin/chromium";

export function requireChromium(): void {
  if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: install Debian's chromium (the root Makefile does: apt-get install chromium)`);
}

export async function launchChromium(): Promise<{ browser: Browser; close(): Promise<void> }> {
  requireChromium();
  const userDataDir = mkdtempSync(join(tmpdir(), "codecbench-test-chromium-"));
  const browser = await puppeteer.launch({
    executablePath: chromiumPath,
    headless: true,
    userDataDir,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  return {
    browser,
    async close() {
      await browser.close().catch(() => {});
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
