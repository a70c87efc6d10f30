#!/usr/bin/env bash
# Runs the images built by build.sh as the Kubernetes manifests do, on this host: control, the
# Rust, Java and browser workers and the harness's scenario Job, each a container of its image
# (`buildah run --isolation chroot`: no container runtime or daemon needed; the host's network,
# so they meet on loopback with the token required anyway), then checks the run finished with
# every task done. `make images-smoke`; needs root (buildah).
#
#   deploy/images/smoke.sh [SCENARIO]   (a path inside the harness image; default quick.yaml)
set -euo pipefail
scenario=${1:-/opt/codecbench/harness/scenarios/quick.yaml}
port=${SMOKE_PORT:-$((20000 + RANDOM % 20000))}
work=$(mktemp -d /tmp/codecbench-smoke.XXXXXX)
token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
mkdir -p "$work/secret" "$work/results" "$work/state"
printf '%s' "$token" >"$work/secret/token"
# The images run as uid 10001 (as in the cluster, where fsGroup does this): it writes the state,
# the results and its logs (the browser driver reopens /dev/stdout, the log file).
touch "$work"/{control,worker-rust,worker-java,worker-browser,harness}.log
chown -R 10001:10001 "$work"
containers=()
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for c in "${containers[@]}"; do buildah rm "$c" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start NAME IMAGE CMD...: a container of IMAGE running CMD in the background, log in $work.
# The token's folder and the results folder are mounted where the manifests mount the Secret and
# the Job's volume (a folder: /var/run is a link to /run in the image, and a file mount through
# it does not appear).
start() {
  local name=$1 image=$2
  shift 2
  local c
  c=$(buildah from -q "localhost/codecbench/$image:latest")
  containers+=("$c")
  buildah run --isolation chroot --env CODECBENCH_TOKEN_FILE=/var/run/codecbench/token \
    --env CODECBENCH_SECURE_ORIGIN="http://127.0.0.1:$port" \
    -v "$work/secret:/run/codecbench:ro" -v "$work/state:/var/lib/codecbench" \
    -v "$work/results:/results" "$c" -- "$@" >"$work/$name.log" 2>&1 &
  pids+=($!)
}

started=$SECONDS
start control control /opt/codecbench/bin/codecbench-control --listen "0.0.0.0:$port" \
  --state-dir /var/lib/codecbench --web-dir /opt/codecbench/web/dist \
  --token-file /var/run/codecbench/token
for _ in $(seq 50); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.2
done
control="http://127.0.0.1:$port"
start worker-rust worker-rust /opt/codecbench/bin/codecbench-worker --control "$control" --name rust \
  --token-file /var/run/codecbench/token
start worker-java worker-java java -jar /opt/codecbench/java/codecbench-java-worker.jar \
  --control "$control" --name java --token-file /var/run/codecbench/token
start worker-browser worker-browser node /opt/codecbench/web/driver/driver.mjs --control "$control" \
  --count 1 --log /results/pages.log  # (the manifest's /dev/stdout is buildah's, not uid 10001's)

c=$(buildah from -q localhost/codecbench/harness:latest)
containers+=("$c")
set +e
buildah run --isolation chroot -v "$work/secret:/run/codecbench:ro" -v "$work/results:/results" \
  --env CODECBENCH_STATE=/tmp/codecbench-state "$c" -- \
  /opt/codecbench/.venv/bin/codecbench --control "$control" --token-file /var/run/codecbench/token \
  run "$scenario" --wait-workers 120 --results-dir /results --no-progress --no-report >"$work/harness.log" 2>&1
rc=$?
set -e
grep -E "^(worker|run|[0-9]+ tasks)" "$work/harness.log" || true
if [ $rc -ne 0 ] || ! grep -qE "^[0-9]+ tasks: ([0-9]+) done$" "$work/harness.log"; then
  echo "images-smoke: the scenario Job failed (exit $rc); its log and the others':" >&2
  for f in "$work"/*.log; do echo "--- $f" >&2; tail -20 "$f" >&2; done
  exit 1
fi
echo "images-smoke: control, rust, java and browser workers and the harness ran from their images; every task done ($((SECONDS - started)) s)"
