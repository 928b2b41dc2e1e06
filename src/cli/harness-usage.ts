// The harness commands' usage, apart from them: `citebench harness --help` and `harness run --help`
// print it without loading the harness, the store and the app (about 2 s of CPU per call).
export const HARNESS_USAGE = `usage: citebench harness [start] [--simulate] [--help]
       citebench harness run <benchmark> [options]   (see \`citebench harness run --help\`)

Runs the measurement harness alone: every benchmark at its cadence, no HTTP API, its own
/metrics on HARNESS_METRICS_PORT (default 9464). At start it reads each benchmark's newest cycle
from the store and logs \`resuming lastSlot=… next=…\`; a slot already stored is never run again.

With STORE=prometheus it is the writer of a split deployment: it writes samples to the engine at
PROMETHEUS_URL and is the one process that freezes closed days into SNAPSHOT_DIR, which API
replicas (\`citebench serve\` with HARNESS_ENABLED=false and the same STORE, PROMETHEUS_URL and
SNAPSHOT_DIR) read.

  STORE            embedded (default: DATA_DIR's database) or prometheus
  PROMETHEUS_URL   the engine's query API (required with STORE=prometheus)
  SNAPSHOT_DIR     the shared folder of frozen days (default DATA_DIR/snapshots); the writer
                   records its BASE_URL there in deployment.json
  BASE_URL         the API's public URL, written into every frozen day's citations (required
                   with STORE=prometheus: replicas serve those days as they are)
  HARNESS_REGION   labels this harness's samples (region=…): harnesses in several regions may
                   write to one engine
  HARNESS_METRICS_PORT  this process's /metrics port (default 9464); on an engine it adds
                   store_engine_up (0/1, probed every 2 s) and store_buffered_samples

  --simulate       the demo's harness as the writer: simulated providers (DEMO_SEED), samples
                   labelled origin="simulated", DATA_DIR's resumable backfill of DEMO_DAYS days
                   (backfill-plan.json), logs \`harness ready … backfilledCycles=N\`, then live on
                   the demo clock (DEMO_SPEED); it publishes that clock to SNAPSHOT_DIR/demo-clock.json,
                   which \`serve --simulate\` replicas (HARNESS_ENABLED=false) follow

  harness run      runs measurement cycles by hand and prints a table (no schedule)
`;

export const HARNESS_RUN_USAGE = `usage: harness run <benchmark> [--provider <slug>]... [--once] [--simulate] [--seed <n>] [--dry-run] [--at <ISO time>] [--data-dir <dir>]

  --once       run one cycle at the latest aligned slot (or --at) and exit
  --provider   only measure this provider (repeatable, or comma-separated); prints what it
               measured and writes nothing, unless --data-dir names another database folder
  --simulate   start the simulated providers and point the adapters at them (implies --dry-run)
  --dry-run    keep samples in memory instead of writing them to the database
  --data-dir   write to this folder's database instead of DATA_DIR's
`;
