import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./chromium";
import { servePage, type PageServer } from "./serve-page";

// Served without COOP/COEP, performance.now() is coarse: the page must say it refuses to measure
// and never attach (no gRPC request at all), so it cannot time anything.

describe("page without cross-origin isolation", () => {
  let server: PageServer;
  let chromium: Awaited<ReturnType<typeof launchChromium>>;

  beforeAll(async () => {
    server = await servePage({ isolated: false });
    chromium = await launchChromium();
  });
  afterAll(async () => {
    await chromium?.close();
    await server?.close();
  });

  it("refuses to measure, says so, and does not attach", async () => {
    const page = await chromium.browser.newPage();
    const console: string[] = [];
    page.on("console", (message) => console.push(message.text()));
    await page.goto(`${server.origin}/`, { waitUntil: "load" });
    await page.waitForSelector('#status[data-state="not-isolated"]', { timeout: 15_000 });
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);
    const notice = await page.$eval("#isolation", (element) => (element as HTMLElement).innerText);
    expect(notice).toContain("This page refuses to measure");
    expect(notice).toContain("not attached");
    const status = await page.$eval("#status", (element) => element.textContent);
    expect(status).toBe("Not measuring: this page is not cross-origin isolated");
    const environment = await page.$eval("#environment", (element) => (element as HTMLElement).innerText);
    expect(environment).toMatch(/crossOriginIsolated\s+false/);
    // Give it time to misbehave: still no gRPC call, no measurement row.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(server.grpcRequests).toEqual([]);
    expect(await page.$$eval("#measurements tbody tr", (rows) => rows.length)).toBe(0);
    expect(console.join("\n")).toContain("not cross-origin isolated, refusing to measure; not attaching");
  });
});
