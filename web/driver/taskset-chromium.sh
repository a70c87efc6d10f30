#!/bin/sh
# Chromium pinned to a task's lane (Task.cpus; trial-browser.mjs launchTrialBrowser). Puppeteer
# launches this in Chromium's place, with Chromium's arguments, CODECBENCH_TRIAL_CPUS (a taskset
# CPU list, "0,1") and CODECBENCH_TRIAL_CHROMIUM (the browser) in the environment. taskset sets
# the affinity and execs Chromium under the same pid (the one puppeteer holds), so the browser
# starts pinned and every process it starts (zygote, renderers, GPU, utility) inherits it.
exec taskset -c "$CODECBENCH_TRIAL_CPUS" "$CODECBENCH_TRIAL_CHROMIUM" "$@"
