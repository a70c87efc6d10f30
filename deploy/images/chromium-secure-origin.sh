# Sourced by Debian's /usr/bin/chromium launcher (/etc/chromium.d/). codecbench's browser worker
# opens control's page at CODECBENCH_SECURE_ORIGIN (e.g. http://codecbench-control:7600): plain
# http off loopback is not a secure context, so Chromium would not cross-origin isolate the page
# (COOP/COEP) and performance.now() would be coarsened to 100 µs; the page then refuses to attach.
if [ -n "${CODECBENCH_SECURE_ORIGIN:-}" ]; then
  export CHROMIUM_FLAGS="$CHROMIUM_FLAGS --unsafely-treat-insecure-origin-as-secure=$CODECBENCH_SECURE_ORIGIN"
fi
