import { create } from "@bufbuild/protobuf";
import { EnvironmentSchema, type Environment } from "../gen/codecbench/v1/results_pb";
import { codecs } from "../codecs/registry";
import { timerResolutionUs } from "./timing";

// What ran (docs/DESIGN.md rule 8), as far as a page can know it: the browser and its version from
// User-Agent Client Hints when available (the UA string is frozen at "X.0.0.0"), the clock's
// measured resolution, isolation, cores. A page cannot see the CPU model or the host name.

interface UADataValues {
  brands?: Array<{ brand: string; version: string }>;
  fullVersionList?: Array<{ brand: string; version: string }>;
  platform?: string;
  platformVersion?: string;
  architecture?: string;
}

interface NavigatorUAData {
  getHighEntropyValues(hints: string[]): Promise<UADataValues>;
}

export interface Browser {
  name: string;
  version: string;
  os: string;
}

/** The browser's name and version from Client Hints, falling back to the UA string. */
export async function detectBrowser(nav: Navigator = navigator): Promise<Browser> {
  const uaData = (nav as Navigator & { userAgentData?: NavigatorUAData }).userAgentData;
  if (uaData) {
    try {
      const values = await uaData.getHighEntropyValues(["fullVersionList", "platformVersion", "architecture"]);
      const list = values.fullVersionList ?? values.brands ?? [];
      // Real brands first; "Not A;Brand"-style entries are deliberately bogus.
      const real = list.filter((b) => !/not.?a.?brand/i.test(b.brand));
      const pick = real.find((b) => b.brand !== "Chromium") ?? real.find((b) => b.brand === "Chromium");
      if (pick) {
        const os = [values.platform, values.platformVersion, values.architecture].filter(Boolean).join(" ");
        return { name: pick.brand, version: pick.version, os };
      }
    } catch {
      // Fall through to the UA string.
    }
  }
  return parseUserAgent(nav.userAgent);
}

export function parseUserAgent(userAgent: string): Browser {
  const os = /\(([^)]*)\)/.exec(userAgent)?.[1] ?? "";
  const patterns: Array<[string, RegExp]> = [
    ["Edge", /Edg\/([\d.]+)/],
    ["Firefox", /Firefox\/([\d.]+)/],
    ["Chromium", /(?:Headless)?Chrom(?:e|ium)\/([\d.]+)/],
    ["Safari", /Version\/([\d.]+).*Safari/],
  ];
  for (const [name, pattern] of patterns) {
    const match = pattern.exec(userAgent);
    if (match) return { name, version: match[1]!, os };
  }
  return { name: "unknown browser", version: "", os };
}

/** `freshBrowser`: trials run in Chromiums the driver launches (one per pass), not in this page. */
export async function collectEnvironment(freshBrowser = false): Promise<Environment> {
  const browser = await detectBrowser();
  const resolutionUs = timerResolutionUs();
  const details: Record<string, string> = {
    crossOriginIsolated: String(globalThis.crossOriginIsolated === true),
    userAgent: navigator.userAgent,
    timerResolutionUs: resolutionUs.toFixed(1),
    hardwareConcurrency: String(navigator.hardwareConcurrency ?? ""),
    origin: location.origin,
    allocBytes: "not counted: a page cannot count heap allocation per operation, so alloc_bytes_per_op is unset",
    trials: freshBrowser
      ? "each trial runs in a fresh headless Chromium page launched by codecbench's driver, one launch per pass of the run's order (new renderer process, V8 isolate and heap per trial; a cell's trials each in a different launch), in a dedicated Web Worker of its trial page; upload and download are timed in this page"
      : "each trial runs in a fresh dedicated Web Worker of this page (new V8 isolate and heap, same Chromium launch); upload and download are timed in the page",
    jitCounter: "none: a browser exposes no JIT compilation counter, so steady state is judged by round medians only",
  };
  // Launch flags are invisible to a page: codecbench's driver passes the V8 flags it started
  // Chromium with in the page's URL, so a run records them (a page opened by hand has none).
  details.v8Flags = new URLSearchParams(location.search).get("v8Flags") ?? "browser defaults (not opened by codecbench's driver)";
  const memory = (navigator as Navigator & { deviceMemory?: number }).deviceMemory;
  if (memory !== undefined) details.deviceMemoryGiB = String(memory);
  for (const codec of codecs.values()) details[`library.${codec.info.id}`] = `${codec.info.library} ${codec.info.libraryVersion}`;
  return create(EnvironmentSchema, {
    language: "browser",
    runtime: browser.name,
    runtimeVersion: browser.version,
    buildProfile: import.meta.env.MODE,
    cpuModel: "",
    cores: navigator.hardwareConcurrency ?? 0,
    hostname: "",
    os: browser.os,
    details,
  });
}
