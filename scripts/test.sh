#!/usr/bin/env bash
# Runs every check and ends with one plain "N passed, N failed" line (vitest's summary is not read by CI).
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .tools
passed=0
failed=0
step() {
  local name=$1
  shift
  echo "── $name"
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED: $name"
  fi
}

# Debian packages the tests use: promtool (package prometheus) checks the /metrics exposition;
# prometheus and victoria-metrics are the real engines behind the Prometheus store tests;
# chromium drives the page tests through playwright-core.
missing=()
{ command -v promtool >/dev/null 2>&1 && [ -x /usr/bin/prometheus ]; } || missing+=(prometheus)
[ -x /usr/bin/victoria-metrics ] || missing+=(victoria-metrics)
[ -x /usr/bin/chromium ] || missing+=(chromium)
# python3 runs scripts/recompute-ci.py, the dataset's independent check (test/e2e/uncertainty-dataset.test.ts).
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "── installing Debian packages: ${missing[*]}"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}") >/dev/null 2>&1 \
      || echo "could not install ${missing[*]}; the tests that need them will fail"
  else
    echo "missing ${missing[*]} (apt-get install as root); the tests that need them will fail"
  fi
fi

step typecheck npx tsc -p .
step lint npx biome check .

# Vitest, once: its three projects (vitest.config.ts) run the timing layer alone first, then the
# unit and e2e layers two files at a time. Its JSON report is counted here.
vitest_run() {
  local report=$1
  shift
  echo "── vitest"
  rm -f "$report"
  npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@"
  local rc=$?
  if [ -f "$report" ]; then
    read -r vp vf < <(node -e "const r=require('./$report');console.log(r.numPassedTests, r.numFailedTests + (r.numTotalTests===0?1:0))")
    passed=$((passed + vp))
    failed=$((failed + vf))
    if [ "$rc" != "0" ] && [ "$vf" = "0" ]; then failed=$((failed + 1)); echo "FAILED: vitest exited $rc"; fi
  else
    failed=$((failed + 1))
    echo "FAILED: vitest wrote no report"
  fi
}
vitest_run .tools/vitest.json

if [ -x scripts/mcp-conformance.sh ]; then
  step mcp-conformance scripts/mcp-conformance.sh
fi

echo "$passed passed, $failed failed"
[ "$failed" = "0" ]
