// Types of trial-browser.mjs for the TypeScript tests and tools that import it.
import type { Browser, Page } from "puppeteer-core";
import type { WireTrialInput, WireTrialRun } from "../src/worker/trials";

export interface TrialBrowserOptions {
  executablePath: string;
  /** Control's origin: the trial page is `${origin}/trial.html`. */
  origin: string;
  /** Control's token, when it requires one (the trial page is opened with `?token=`). */
  token?: string;
  log?: (line: string) => void;
  /** Chromium's launch flags (default: flags.mjs CHROMIUM_FLAGS). */
  args?: string[];
  /** Chromium's stderr to this process's (e.g. V8's --trace-gc); off by default. */
  dumpio?: boolean;
}
export declare function runInFreshBrowser(options: TrialBrowserOptions & { input: WireTrialInput; timeoutMs: number; onLaunch?: (browser: Browser) => void }): Promise<WireTrialRun>;
export interface TrialBrowserHost {
  run(input: WireTrialInput, timeoutMs: number): Promise<WireTrialRun>;
  abort(): Promise<void>;
  /** Closes the launch kept between trials of one key. */
  close(): Promise<void>;
}
export declare function trialBrowserHost(options: TrialBrowserOptions): TrialBrowserHost;
export declare function exposeTrialBrowser(page: Page, options: TrialBrowserOptions): Promise<() => Promise<void>>;
export declare function processTree(pid: number): number[];
/** A Chromium launch for trials; with `cpus` (Task.cpus) started pinned to them. */
export interface TrialLaunch {
  browser: Browser;
  userDataDir: string;
  launchMs: number;
  trials: number;
  /** The lane it was pinned to ("0,1"), "" for none. */
  cpus: string;
  /** Its processes' CPU list as last read from /proc (ReportResultRequest.trial_cpus). */
  trialCpus: string;
}
export declare function launchTrialBrowser(options: Omit<TrialBrowserOptions, "origin"> & { protocolTimeoutMs?: number; onLaunch?: (browser: Browser) => void; cpus?: number[] }): Promise<TrialLaunch>;
export declare function closeLaunch(launch: TrialLaunch | undefined): Promise<void>;
export declare function runTrial(options: TrialBrowserOptions & { input: WireTrialInput; timeoutMs: number; launch?: TrialLaunch }): Promise<WireTrialRun>;
/** /proc/PID/status Cpus_allowed_list ("0-1"); "" where not known. */
export declare function cpusAllowed(pid: number | undefined): string;
