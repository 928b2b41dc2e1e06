/**
 * Issue 15, "Serve at the speed of bare Node": every GET route of the demo service against a bare
 * node:http server sending the very same status, headers and bytes, both loaded by wrk.
 *
 * Three processes: the service (the demo backfills a fresh DATA_DIR with 3 days, then the same data
 * is served by `citebench serve --simulate` with HARNESS_ENABLED=false, so no harness cycle runs
 * beside the measured requests; WRK_HARNESS=1 measures the demo itself), the bare server (bench/bare-server.ts
 * --capture) and wrk. For each route: GET it twice (the first warms caches and renders, e.g. the OG
 * PNG), capture the second answer, start the bare server with it, then wrk the bare server and the
 * service in turn (-t1 -c32 --latency, a short unrecorded warm-up first).
 *
 * Targets: cached /api/stat, /api/citable, a day snapshot, a citation and the warm OG PNG at ≥ 90%
 * of bare req/s with p99 < 10 ms; every GET route ≥ 50% of bare. /metrics is measured but not
 * targeted; /mcp is POST and skipped.
 *
 *   npm run bench:wrk
 *   WRK_DURATION=2s WRK_WARMUP=0 ROUTES=stat,citable npm run bench:wrk
 *   npm run bench:wrk -- og cite        (filters as arguments)
 *
 * WRK_DURATION (5s), WRK_WARMUP (1s; 0 = none), WRK_CONNECTIONS (32), WRK_ROUNDS_HOT (3), WRK_PIN
 * (1: servers on CPU 0, wrk on CPU 1; 0: unpinned), ROUTES (comma-separated:
 * a route's first path word such as stat, citable, cite, og, compare, home, or a URL prefix such as
 * /api/stat/network), WRK_DATA_DIR (reuse a DATA_DIR; it is not deleted),
 * BENCH_VERBOSE=1 (echo the service's log).
 */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CITE_FORMATS } from '../src/core/citations.ts';
import { GET_PATHS } from '../src/http/app.ts';
import {
  type Captured,
  capture,
  freePort,
  liveValues,
  machine,
  machineLine,
  makeTempDir,
  markdownTable,
  pinCpus,
  rssMb,
  runMain,
  runWrk,
  SERVER_CPU,
  sleep,
  spawnTsx,
  startDemo,
  stopChild,
  type Values,
  type WrkResult,
  waitFor200,
  writeResults,
} from './wrk-lib.ts';

const DURATION = process.env.WRK_DURATION ?? '5s';
const WARMUP = process.env.WRK_WARMUP ?? '1s';
const CONNECTIONS = Number(process.env.WRK_CONNECTIONS ?? 32);
/**
 * Rounds per targeted-at-90% route (bare and service in turn, the order swapped each round so a
 * drifting machine favours neither); the round with the median ratio is reported, every ratio is
 * listed. One round each for the other routes.
 */
const HOT_ROUNDS = Number(process.env.WRK_ROUNDS_HOT ?? 3);
/** Service and bare server on CPU 0, wrk on CPU 1 (WRK_PIN=0 to let the scheduler place them). */
const PINNED = pinCpus(process.env.WRK_PIN !== '0');
const FILTERS = [...(process.env.ROUTES ?? '').split(','), ...process.argv.slice(2)]
  .map((s) => s.trim())
  .filter(Boolean);
const HOT = { ratio: 0.9, p99Ms: 10 } as const;
const ALL = { ratio: 0.5 } as const;

type Tier = 'hot' | 'all' | 'untargeted';

interface RouteCase {
  readonly template: string;
  readonly path: string;
  readonly tier: Tier;
}

/** Concrete URLs for one GET_PATHS template; an empty list means "not covered" (reported). */
function concretize(template: string, v: Values): RouteCase[] {
  const slug = v.slugs[0] as string;
  const provider = v.providers.get(slug)?.[0];
  const [a, b] = v.pair;
  const one = (path: string, tier: Tier = 'all'): RouteCase[] => [{ template, path, tier }];
  const fmt = CITE_FORMATS.filter((f) => f !== 'bib')[0] ?? 'ris';
  switch (template) {
    case '/metrics':
      return one('/metrics', 'untargeted');
    case '/mcp':
      return [];
    case '/api/citable':
      return one('/api/citable', 'hot');
    case '/api/citable/:date':
      return one(`/api/citable/${v.day}`, 'hot');
    case '/api/stat/:slug':
      return [
        ...v.slugs.map((s) => ({ template, path: `/api/stat/${s}`, tier: 'hot' as const })),
        ...(v.chain
          ? [{ template, path: `/api/stat/${v.chain.slug}?chain=${v.chain.value}`, tier: 'hot' as const }]
          : []),
        { template, path: `/api/stat/${slug}?date=${v.day}`, tier: 'all' },
      ];
    case '/api/compare/:a/:b':
      return one(`/api/compare/${a}/${b}`);
    case '/api/audit/:slug/:provider':
      return provider ? one(`/api/audit/${slug}/${provider}`) : [];
    case '/api/cite/:slug/:format':
      return [
        { template, path: `/api/cite/${slug}/bib`, tier: 'hot' },
        { template, path: `/api/cite/${slug}/${fmt}`, tier: 'all' },
        { template, path: `/api/cite/${slug}/bib?date=${v.day}`, tier: 'all' },
      ];
    case '/api/series/:slug':
      return one(`/api/series/${slug}`);
    case '/api/dataset/:date{[^/]+\\.json}':
      return one(`/api/dataset/${v.day}.json`);
    case '/api/dataset/:file':
      return one(`/api/dataset/${v.day}.csv`);
    case '/api/og/:slug':
      return one(`/api/og/${slug}`, 'hot');
    case '/api/sparkline/:slug':
      return one(`/api/sparkline/${slug}`);
    case '/api/chart/:slug':
      return one(`/api/chart/${slug}`);
    case '/api/providers/:slug':
      return provider ? one(`/api/providers/${provider}`) : [];
    case '/providers/:slug':
      return provider ? one(`/providers/${provider}`) : [];
    case '/benchmarks/:slug':
      return one(`/benchmarks/${slug}`);
    case '/compare/:pair':
      return one(`/compare/${a}-vs-${b}`);
    default:
      // Parameterless routes are their own URL; a new parameterised one needs a case above.
      return template.includes(':') ? [] : one(template);
  }
}

/**
 * A filter names a route by its first path word ("stat" is /api/stat/:slug, "compare" both compare
 * routes, "home" is /), or is a URL prefix starting with "/" ("/api/stat/token-trade-coverage?").
 */
function selects(filter: string, c: RouteCase): boolean {
  if (filter.startsWith('/')) return c.path.startsWith(filter);
  const word = c.template.split('/').filter((w) => w && w !== 'api')[0] ?? 'home';
  return word === filter;
}

interface RouteResult {
  readonly template: string;
  readonly path: string;
  readonly tier: Tier;
  readonly target: string;
  /** When the route's measurement started (to line up with harness cycles in the service's log). */
  readonly at: string;
  readonly status: number;
  /** The service's status for the URL right after its run (a 503 here: it was shedding load). */
  readonly statusAfter: number;
  readonly contentType: string;
  readonly bytes: number;
  readonly service: WrkResult;
  readonly bare: WrkResult;
  readonly ratio: number;
  /** Every measured answer was a 2xx/3xx without socket errors, and the capture was a 200. */
  readonly valid: boolean;
  readonly met: boolean | null;
  /** The service's bytes for the URL differed after the run (data or clock moved). */
  readonly changedDuringRun: boolean;
  readonly notes: readonly string[];
}

function targetOf(tier: Tier): string {
  if (tier === 'hot') return `≥ ${HOT.ratio} of bare, p99 < ${HOT.p99Ms} ms`;
  if (tier === 'all') return `≥ ${ALL.ratio} of bare`;
  return 'not targeted';
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function measure(route: RouteCase, base: string, dir: string, index: number): Promise<RouteResult> {
  const url = `${base}${route.path}`;
  const at = new Date().toISOString();
  await capture(url); // warm: renders, caches, lazy views
  let got: Captured = await capture(url);
  // /metrics sheds load (503) while the event loop is still saturated from the previous run.
  for (let i = 0; i < 25 && got.status === 503; i++) {
    await sleep(200);
    got = await capture(url);
  }
  const json = join(dir, `route-${index}.json`);
  await writeFile(join(dir, `route-${index}.body`), got.body);
  await writeFile(
    json,
    JSON.stringify({ status: got.status, headers: got.headers, bodyFile: `route-${index}.body` }, null, 2),
  );
  const port = await freePort();
  const bareServer = spawnTsx('bench/bare-server.ts', ['--capture', json, String(port)], { cpu: SERVER_CPU });
  const bareUrl = `http://127.0.0.1:${port}${route.path}`;
  let bare: WrkResult;
  let service: WrkResult;
  let roundRatios: number[] = [];
  try {
    await waitFor200(bareUrl, 15_000, () => bareServer.exitCode === null, true);
    const check = await capture(bareUrl);
    if (check.status !== got.status || !check.body.equals(got.body)) {
      throw new Error(`the bare server does not replay ${route.path}`);
    }
    const run = (u: string, d: string) => runWrk({ url: u, duration: d, connections: CONNECTIONS });
    const timed = async (u: string) => {
      if (WARMUP !== '0') await run(u, WARMUP);
      return run(u, DURATION);
    };
    const rounds = route.tier === 'hot' ? Math.max(1, HOT_ROUNDS) : 1;
    const measured: { bare: WrkResult; service: WrkResult; ratio: number }[] = [];
    for (let r = 0; r < rounds; r++) {
      const first = await timed(r % 2 === 0 ? bareUrl : url);
      const second = await timed(r % 2 === 0 ? url : bareUrl);
      const [b, sv] = r % 2 === 0 ? [first, second] : [second, first];
      measured.push({ bare: b, service: sv, ratio: sv.rps / b.rps });
    }
    const byRatio = [...measured].sort((a, b) => a.ratio - b.ratio);
    const median = byRatio[Math.floor((byRatio.length - 1) / 2)] as (typeof measured)[number];
    bare = median.bare;
    service = median.service;
    roundRatios = measured.map((m) => Number(m.ratio.toFixed(2)));
  } finally {
    await stopChild(bareServer, 5_000);
  }
  const after = await capture(url);
  const notes: string[] = [];
  if (roundRatios.length > 1) notes.push(`rounds ${roundRatios.join(' / ')} (median reported)`);
  if (got.status !== 200) notes.push(`answered ${got.status}`);
  if (service.non2xx > 0) notes.push(`${service.non2xx} non-2xx/3xx from the service`);
  if (service.errors > 0) notes.push(`${service.errors} socket errors (service)`);
  if (bare.non2xx > 0 || bare.errors > 0) notes.push('bare run had errors');
  const changedDuringRun = after.status !== got.status || sha(after.body) !== sha(got.body);
  if (changedDuringRun) notes.push('bytes changed during the run');
  if (after.status !== got.status) notes.push(`answered ${after.status} right after its run`);
  const valid =
    got.status === 200 &&
    service.non2xx === 0 &&
    service.errors === 0 &&
    bare.non2xx === 0 &&
    bare.errors === 0;
  if (!valid) notes.unshift('INVALID');
  const ratio = service.rps / bare.rps;
  const met =
    route.tier === 'untargeted'
      ? null
      : valid &&
        (route.tier === 'hot' ? ratio >= HOT.ratio && service.p99Ms < HOT.p99Ms : ratio >= ALL.ratio);
  const ct = got.headers['content-type'];
  return {
    template: route.template,
    path: route.path,
    tier: route.tier,
    target: targetOf(route.tier),
    at,
    status: got.status,
    statusAfter: after.status,
    contentType: Array.isArray(ct) ? ct.join(', ') : (ct ?? ''),
    bytes: got.body.length,
    service,
    bare,
    ratio,
    valid,
    met,
    changedDuringRun,
    notes,
  };
}

await runMain(async () => {
  const m = machine();
  const startedAt = new Date().toISOString();
  const reuse = process.env.WRK_DATA_DIR;
  const demo = await startDemo({
    speed: 1,
    // The serving layer alone: the demo's data, served with the harness off (WRK_HARNESS=1 keeps it).
    still: process.env.WRK_HARNESS !== '1',
    ...(reuse ? { dataDir: reuse } : {}),
    verbose: process.env.BENCH_VERBOSE === '1',
  });
  const values = await liveValues(demo.base);
  const skipped: { template: string; reason: string }[] = [];
  const cases: RouteCase[] = [];
  for (const template of GET_PATHS) {
    const list = concretize(template, values);
    if (list.length === 0) {
      skipped.push({
        template,
        reason:
          template === '/mcp' ? 'POST (JSON-RPC); not a GET resource' : 'no concrete URL for this template',
      });
    }
    cases.push(...list);
  }
  const selected = FILTERS.length ? cases.filter((c) => FILTERS.some((f) => selects(f, c))) : cases;
  process.stderr.write(
    `measuring ${selected.length} URLs: wrk -t1 -c${CONNECTIONS} -d${DURATION} --latency (warm-up ${WARMUP}), bare then service\n`,
  );
  const dir = await makeTempDir('citebench-wrk-capture-');
  const results: RouteResult[] = [];
  for (const [i, route] of selected.entries()) {
    const r = await measure(route, demo.base, dir, i);
    results.push(r);
    process.stderr.write(
      `  ${route.path}: ${r.service.rps.toFixed(0)} vs ${r.bare.rps.toFixed(0)} req/s (${r.ratio.toFixed(2)}), p99 ${r.service.p99Ms.toFixed(2)} ms${r.notes.length ? ` — ${r.notes.join('; ')}` : ''}\n`,
    );
  }
  const rssMbEnd = rssMb(demo.pid);
  await stopChild(demo.child);

  const yes = (b: boolean | null) => (b === null ? 'n/a' : b ? 'yes' : '**NO**');
  const rows: (string | number)[][] = [
    [
      'route',
      'service req/s',
      'bare req/s',
      'ratio',
      'p99 service ms',
      'p99 bare ms',
      'target',
      'met?',
      'notes',
    ],
    ...results.map((r) => [
      `\`${r.path}\``,
      r.service.rps,
      r.bare.rps,
      r.ratio,
      r.service.p99Ms,
      r.bare.p99Ms,
      r.target,
      yes(r.met),
      r.notes.join('; '),
    ]),
  ];
  const hot = results.filter((r) => r.tier === 'hot');
  const targeted = results.filter((r) => r.tier !== 'untargeted');
  const floor = targeted.filter((r) => r.valid && r.ratio >= ALL.ratio);
  const endLoad = machine().loadAverage;
  const summary = [
    `hot routes (≥ ${HOT.ratio} of bare, p99 < ${HOT.p99Ms} ms): ${hot.filter((r) => r.met).length}/${hot.length} met`,
    `every GET route ≥ ${ALL.ratio} of bare: ${floor.length}/${targeted.length} met`,
    `invalid measurements (non-200 capture, non-2xx/3xx or socket errors): ${results.filter((r) => !r.valid).length}`,
    ...(skipped.length
      ? [`not measured: ${skipped.map((s) => `${s.template} (${s.reason})`).join(', ')}`]
      : []),
  ];
  process.stdout.write(
    [
      '',
      machineLine(m),
      `load average at end ${endLoad.join(' ')}; service ready after ${demo.readySeconds.toFixed(1)} s, idle after another ${demo.settleSeconds.toFixed(1)} s; RSS at end ${rssMbEnd?.toFixed(0) ?? '?'} MB`,
      `wrk -t1 -c${CONNECTIONS} -d${DURATION} --latency per URL (warm-up ${WARMUP}); ${HOT_ROUNDS} rounds for the 90% routes (order swapped each round, median ratio reported), 1 for the others; ${PINNED ? 'servers pinned to CPU 0, wrk to CPU 1' : 'unpinned'}; closed day ${values.day}`,
      '',
      markdownTable(rows),
      '',
      ...summary,
      '',
    ].join('\n'),
  );
  await writeResults('wrk-routes', {
    startedAt,
    machine: m,
    loadAverageAtEnd: endLoad,
    settings: {
      duration: DURATION,
      warmup: WARMUP,
      connections: CONNECTIONS,
      threads: 1,
      filters: FILTERS,
      hotRounds: HOT_ROUNDS,
      pinned: PINNED,
    },
    service: {
      readySeconds: demo.readySeconds,
      settleSeconds: demo.settleSeconds,
      rssMbAtEnd: rssMbEnd,
      closedDay: values.day,
    },
    targets: { hot: HOT, all: ALL },
    routes: results,
    skipped,
  });
});
