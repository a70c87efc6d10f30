// Number formatting for the page.

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
}

/** Nanoseconds as a plain number with digit groups (the column says the unit). */
export function formatNs(ns: number): string {
  if (!Number.isFinite(ns)) return "–";
  return ns >= 100 ? Math.round(ns).toLocaleString("en-US") : ns.toFixed(1);
}

export function formatPercent(fraction: number): string {
  return Number.isFinite(fraction) ? `${(fraction * 100).toFixed(1)} %` : "–";
}
