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

# Vitest in two phases, each layer a run of its project (vitest.config.ts) with its own JSON
# report, counted here. The machine is CPU-bound, so each phase keeps both cores busy and no more:
# 1. the timing layer (its files one at a time) beside the unit layer on one worker: a timing file
#    sees one core busy, as its calibration (taken at its start, beside the unit run) does; once
#    the timing layer ends, the e2e layer's longest file runs on the core it frees;
# 2. the rest of the e2e layer two files at a time, beside the MCP conformance run (a client
#    waiting on a server).
count_report() {
  local name=$1 report=$2 rc=$3
  if [ -f "$report" ]; then
    read -r vp vf < <(node -e "const r=require('./$report');console.log(r.numPassedTests, r.numFailedTests + (r.numTotalTests===0?1:0))")
    passed=$((passed + vp))
    failed=$((failed + vf))
    if [ "$rc" != "0" ] && [ "$vf" = "0" ]; then failed=$((failed + 1)); echo "FAILED: vitest $name exited $rc"; fi
  else
    failed=$((failed + 1))
    echo "FAILED: vitest $name wrote no report"
  fi
}
vitest_project() {
  local name=$1
  shift
  rm -f ".tools/vitest-$name.json"
  npx vitest run --project "$name" --reporter=default --reporter=json --outputFile.json=".tools/vitest-$name.json" "$@"
}

# The unit layer on one worker outlasts the timing layer by about a minute; the e2e layer's longest
# file (a whole demo, one test of about two minutes) takes the core the timing layer frees, and the
# rest of the e2e layer starts once the unit layer ends.
LONG_E2E=test/e2e/demo-e2e.test.ts
echo "── vitest: timing (output below when it ends) beside unit"
CITEBENCH_UNIT_WORKERS=1 vitest_project unit > .tools/vitest-unit.log 2>&1 &
unit_pid=$!
vitest_project timing > .tools/vitest-timing.log 2>&1
timing_rc=$?
rm -f .tools/vitest-e2e-long.json
npx vitest run --project e2e --reporter=default --reporter=json --outputFile.json=.tools/vitest-e2e-long.json "$LONG_E2E" \
  > .tools/vitest-e2e-long.log 2>&1 &
long_pid=$!
wait "$unit_pid"
unit_rc=$?
cat .tools/vitest-unit.log
echo "── vitest: timing"
cat .tools/vitest-timing.log
count_report unit .tools/vitest-unit.json "$unit_rc"
count_report timing .tools/vitest-timing.json "$timing_rc"

conformance_pid=
if [ -x scripts/mcp-conformance.sh ]; then
  scripts/mcp-conformance.sh > .tools/mcp-conformance.log 2>&1 &
  conformance_pid=$!
fi
echo "── vitest: e2e (the rest of it; $LONG_E2E below when it ends)"
vitest_project e2e --exclude "$LONG_E2E"
count_report e2e .tools/vitest-e2e.json $?
wait "$long_pid"
long_rc=$?
echo "── vitest: $LONG_E2E"
cat .tools/vitest-e2e-long.log
count_report e2e-long .tools/vitest-e2e-long.json "$long_rc"
if [ -n "$conformance_pid" ]; then
  echo "── mcp-conformance"
  wait "$conformance_pid"
  conformance_rc=$?
  cat .tools/mcp-conformance.log
  if [ "$conformance_rc" = "0" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: mcp-conformance"; fi
fi

echo "$passed passed, $failed failed"
[ "$failed" = "0" ]
