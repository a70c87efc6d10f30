// Chromium's launch flags for a browser worker, shared by the driver and web/tools/stability.

// V8's young generation at a fixed size. A fresh isolate (each trial's Web Worker) starts with a
// small semi-space and grows it as scavenges find survivors, so GC cadence — and, for
// allocation-heavy decodes, whether a timed round holds a collection — depended on each trial's
// growth history: trials of identical work spread ±25 % (web/tools/stability: dummy protobuf
// decode ×2000, 16 trials, max/min 1.29 with the defaults, 1.07 with this). 16 MiB per
// semi-space is the most V8 grows it to on 64-bit, i.e. the state a long-running page reaches;
// fixing it is the browser's "fixed allocator state" (docs/DESIGN.md, rule 3).
//
// Allocation-site pretenuring off. V8 decides per allocation site, from how many of its objects
// the early scavenges found alive, to allocate them straight in old space, and reverts that
// seconds later once they die young. Whether a trial's first collections caught a decode's records
// alive is timing, so trials of identical work ran in one state or the other: dummy protobuf typed
// decode ×1000 at 3.7 or 5.0 µs/record, some trials stepping from 5 to 3.7 mid-measurement
// (web/tools/stability, 14 trials: max/min 1.47). A 3 s warm-up ends every trial in the fast state
// (max/min 1.23); this flag starts it there (max/min 1.20, the same median) without the wait. A
// benchmark's decoded records die young, so this is the state a long-running loop reaches.
export const V8_FLAGS = "--min-semi-space-size=16 --max-semi-space-size=16 --no-allocation-site-pretenuring";

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
  // Control off loopback (a network lab, a cluster) serves the page over plain http, which is not
  // a secure context: Chromium would not cross-origin isolate it and would coarsen its clock.
  ...(process.env.CODECBENCH_SECURE_ORIGIN
    ? [`--unsafely-treat-insecure-origin-as-secure=${process.env.CODECBENCH_SECURE_ORIGIN}`]
    : []),
];
