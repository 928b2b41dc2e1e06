/**
 * Issue 28, "pages at the speed of the API": req/s of the HTML pages a reader opens first (`/`,
 * `/benchmarks/{slug}` with its matrix, `/compare/{a}-vs-{b}`) beside the cached `/api/stat`, in
 * one run against one service. Target: each page ≥ 0.8× of `/api/stat`. Not a timed test.
 *
 * The demo backfills a fresh DATA_DIR, then the same data is served by `citebench serve --simulate`
 * with the harness off, so nothing but the measured requests runs. Each URL is fetched twice first
 * (the first renders and caches), then loaded by wrk in its own process (-t1 -c32), servers and wrk
 * pinned to their own CPUs; WRK_ROUNDS rounds in alternating order, the median round reported.
 *
 *   npm run bench:pages
 *   WRK_DURATION=3s WRK_ROUNDS=1 npm run bench:pages
 *
 * It speaks only HTTP, so it runs unchanged on code from before the issue (the "before" figures).
 */
import {
  capture,
  machine,
  machineLine,
  markdownTable,
  runMain,
  runWrk,
  startDemo,
  stopChild,
  writeResults,
} from './wrk-lib.ts';

const DURATION = process.env.WRK_DURATION ?? '5s';
const ROUNDS = Number(process.env.WRK_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.WRK_CONNECTIONS ?? 32);

const ROUTES: ReadonlyArray<{ name: string; path: string }> = [
  { name: 'GET /api/stat/{slug}', path: '/api/stat/token-trade-coverage' },
  { name: 'GET /', path: '/' },
  { name: 'GET /benchmarks/{slug} (matrix)', path: '/benchmarks/token-trade-coverage' },
  { name: 'GET /compare/{a}-vs-{b}', path: '/compare/mobula-vs-codex' },
];

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
};

await runMain(async () => {
  const m = machine();
  const svc = await startDemo({ speed: 1, still: true, seed: 42 });
  try {
    for (const r of ROUTES) {
      for (let i = 0; i < 2; i++) {
        const got = await capture(`${svc.base}${r.path}`);
        if (got.status !== 200) throw new Error(`${r.path} answered ${got.status}`);
      }
    }
    const rps = new Map<string, number[]>();
    const p99 = new Map<string, number[]>();
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? ROUTES : [...ROUTES].reverse();
      for (const r of order) {
        const res = await runWrk({
          url: `${svc.base}${r.path}`,
          duration: DURATION,
          connections: CONNECTIONS,
        });
        rps.set(r.name, [...(rps.get(r.name) ?? []), res.rps]);
        p99.set(r.name, [...(p99.get(r.name) ?? []), res.p99Ms]);
        process.stderr.write(`round ${round + 1} ${r.name}: ${Math.round(res.rps)} req/s\n`);
      }
    }
    const stat = median(rps.get(ROUTES[0]?.name ?? '') ?? []);
    const rows = ROUTES.map((r) => {
      const v = median(rps.get(r.name) ?? []);
      const ratio = stat > 0 ? v / stat : 0;
      const target = r === ROUTES[0] ? '–' : ratio >= 0.8 ? 'yes' : 'NO';
      return [
        r.name,
        Math.round(v),
        median(p99.get(r.name) ?? []).toFixed(2),
        ratio.toFixed(2),
        target,
        (rps.get(r.name) ?? []).map((x) => Math.round(x)).join(' / '),
      ];
    });
    console.log(machineLine(m));
    console.log(`wrk -t1 -c${CONNECTIONS} -d${DURATION}, ${ROUNDS} rounds, median round\n`);
    console.log(
      markdownTable([['route', 'req/s', 'p99 ms', 'vs /api/stat', '≥ 0.8', 'every round (req/s)'], ...rows]),
    );
    await writeResults('pages', { machine: m, rows });
  } finally {
    await stopChild(svc.child);
  }
});
