// Chromium's launch flags for a browser worker, shared by the driver and web/tools/stability.

// V8's young generation at a fixed size. A fresh isolate (each trial's Web Worker) starts with a
// small semi-space and grows it as scavenges find survivors, so GC cadence — and, for
// allocation-heavy decodes, whether a timed round holds a collection — depended on each trial's
// growth history: trials of identical work spread ±25 % (web/tools/stability: dummy protobuf
// decode ×2000, 16 trials, max/min 1.29 with the defaults, 1.07 with this). 16 MiB per
// semi-space is the most V8 grows it to on 64-bit, i.e. the state a long-running page reaches;
// fixing it is the browser's "fixed allocator state" (docs/DESIGN.md, rule 3).
export const V8_FLAGS = "--min-semi-space-size=16 --max-semi-space-size=16";

// The flags that work as root on these machines; the background-networking ones stop Chromium
// from retrying a closed network. Timer throttling off: background tabs are workers too.
export const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-background-timer-throttling",
  "--disable-renderer-backgrounding",
  "--disable-backgrounding-occluded-windows",
  `--js-flags=${V8_FLAGS}`,
  // Headless Chromium 156 preloads the omnibox popup's WebUI pages in a renderer of their own,
  // which kept about half a CPU busy for ~1 s after every launch (/proc, per process): with a
  // fresh Chromium per trial that would overlap the trial's warm-up. Nothing here has an omnibox.
  "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,PreloadTopChromeWebUI",
];
