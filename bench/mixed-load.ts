import {
  capture,
  durationSeconds,
  liveValues,
  machine,
  machineLine,
  markdownTable,
  rssMb,
  runMain,
  runWrk,
  sleep,
  slope,
  startDemo,
  stopChild,
  writeResults,
} from './wrk-lib.ts';

const DURATION = process.env.MIXED_DURATION ?? '60s';
const CONNECTIONS = Number(process.env.MIXED_CONNECTIONS ?? 16);
const SPEED = Number(process.env.DEMO_SPEED ?? 600);
const WARM_FRACTION = 0.2;
const TARGET = { p99Ms: 20, rssGrowth: 0.05 } as const;

/** Sum of the harness's completed cycles, from /metrics (null if the metric is missing). */
async function harnessCycles(base: string): Promise<number | null> {
  // /metrics answers 503 while the event loop is saturated (right after a load run): retry.
  let m = await capture(`${base}/metrics`);
  for (let i = 0; i < 50 && m.status !== 200; i++) {
    await sleep(200);
    m = await capture(`${base}/metrics`);
  }
  const lines = m.body
    .toString('utf8')
    .split('\n')
    .filter((l) => l.startsWith('harness_cycle_duration_seconds_count'));
  if (lines.length === 0) return null;
  return lines.reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

await runMain(async () => {
  const m = machine();
  const startedAt = new Date().toISOString();
  const reuse = process.env.WRK_DATA_DIR;
  const demo = await startDemo({
    speed: SPEED,
    ...(reuse ? { dataDir: reuse } : {}),
    quietTimeoutMs: 15_000,
    verbose: process.env.BENCH_VERBOSE === '1',
  });
  const v = await liveValues(demo.base);
  const [slug, second] = v.slugs;
  const provider = v.providers.get(slug as string)?.[0];
  const [a, b] = v.pair;
  const paths = [
    `/api/stat/${slug}`,
    ...(second ? [`/api/stat/${second}`] : []),
    ...(v.chain ? [`/api/stat/${v.chain.slug}?chain=${v.chain.value}`] : []),
    '/api/citable',
    `/api/citable/${v.day}`,
    ...(provider ? [`/api/audit/${slug}/${provider}`] : []),
    `/api/compare/${a}/${b}`,
    `/api/cite/${slug}/bib`,
    `/api/og/${slug}`,
    `/api/sparkline/${slug}`,
    '/api/llm-context',
    `/benchmarks/${slug}`,
    // The json-rpc benchmarks (issue 22): 1-minute data in three regions, the largest views.
    ...(v.slugs.includes('rpc-latency')
      ? [
          '/api/stat/rpc-latency',
          '/api/stat/rpc-latency?region=eu-west&kind=logs',
          '/api/stat/rpc-head-lag',
          '/api/audit/rpc-latency/alchemy',
          '/benchmarks/rpc-latency',
        ]
      : []),
  ];
  if (paths.length !== 17)
    process.stderr.write(`note: ${paths.length} routes, not 17 (missing live values)\n`);
  const statusBefore: Record<string, number> = {};
  for (const p of paths) statusBefore[p] = (await capture(`${demo.base}${p}`)).status;
  const cyclesBefore = await harnessCycles(demo.base);

  const seconds = durationSeconds(DURATION);
  process.stderr.write(
    `mixed load: ${paths.length} routes, wrk -t1 -c${CONNECTIONS} -d${DURATION} --latency; RSS every 1 s …\n`,
  );
  const samples: { s: number; mb: number }[] = [];
  const t0 = performance.now();
  const sample = () => {
    const mb = rssMb(demo.pid);
    if (mb !== null) samples.push({ s: (performance.now() - t0) / 1000, mb });
  };
  /** Non-200 answers seen by the once-a-second probe: path → status → count, and the first time. */
  const probeMisses: Record<string, Record<string, number>> = {};
  const probeFirstMiss: Record<string, number> = {};
  let probing = false;
  let probes = 0;
  const probe = async () => {
    if (probing) return;
    probing = true;
    try {
      for (const p of paths) {
        const r = await capture(`${demo.base}${p}`, 10_000).catch(() => ({ status: 0 }));
        probes++;
        if (r.status === 200) continue;
        const byStatus = probeMisses[p] ?? {};
        probeMisses[p] = byStatus;
        byStatus[String(r.status)] = (byStatus[String(r.status)] ?? 0) + 1;
        probeFirstMiss[p] ??= Math.round((performance.now() - t0) / 100) / 10;
      }
    } finally {
      probing = false;
    }
  };
  sample();
  const timer = setInterval(() => {
    sample();
    void probe();
  }, 1000);
  let wrk: Awaited<ReturnType<typeof runWrk>>;
  try {
    wrk = await runWrk({
      url: demo.base,
      duration: DURATION,
      connections: CONNECTIONS,
      script: 'bench/wrk/mixed.lua',
      scriptArgs: paths,
    });
  } finally {
    clearInterval(timer);
  }
  sample();
  const cyclesAfter = await harnessCycles(demo.base);
  const statusAfter: Record<string, number> = {};
  for (const p of paths) statusAfter[p] = (await capture(`${demo.base}${p}`)).status;
  await stopChild(demo.child);

  const warmAt = seconds * WARM_FRACTION;
  const post = samples.filter((x) => x.s >= warmAt);
  const median = (xs: readonly number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length === 0
      ? Number.NaN
      : ((s[(s.length - 1) >> 1] as number) + (s[s.length >> 1] as number)) / 2;
  };
  const rssWarmPoint = post[0]?.mb ?? Number.NaN;
  const rssWarm = median(samples.filter((x) => x.s >= warmAt && x.s < seconds * 0.3).map((x) => x.mb));
  const rssEndPoint = samples.at(-1)?.mb ?? Number.NaN;
  const rssEnd = median(samples.filter((x) => x.s >= seconds * 0.9).map((x) => x.mb));
  const rssMax = Math.max(...samples.map((x) => x.mb));
  const rssStart = samples[0]?.mb ?? Number.NaN;
  const slopeMbPerMin = slope(post.map((x) => ({ x: x.s / 60, y: x.mb })));
  const growth = (rssEnd - rssWarm) / rssWarm;
  const p99Met = wrk.p99Ms < TARGET.p99Ms;
  const rssFlat = growth < TARGET.rssGrowth;
  const bad = paths.filter((p) => statusBefore[p] !== 200 || statusAfter[p] !== 200);
  const valid = wrk.non2xx === 0 && wrk.errors === 0;
  const missed = Object.entries(probeMisses).map(
    ([p, by]) =>
      `${p}: ${Object.entries(by)
        .map(([st, n]) => `${n}× ${st}`)
        .join(', ')} (first at ${probeFirstMiss[p]} s)`,
  );
  const yes = (x: boolean) => (x ? 'yes' : '**NO**');

  const rows: (string | number)[][] = [
    ['figure', 'measured', 'target', 'met?'],
    ['req/s (all routes)', wrk.rps, '—', '—'],
    ['p50 latency (ms)', wrk.p50Ms, '—', '—'],
    ['p99 latency (ms)', wrk.p99Ms, `< ${TARGET.p99Ms}`, yes(p99Met)],
    ['max latency (ms)', wrk.maxMs, '—', '—'],
    ['non-2xx/3xx responses', wrk.non2xx, '0', yes(wrk.non2xx === 0)],
    ['socket errors', wrk.errors, '0', yes(wrk.errors === 0)],
    ['RSS at start of load (MB)', rssStart, '—', '—'],
    [`RSS at ${Math.round(warmAt)} s, end of warm-up (MB)`, rssWarmPoint, '—', '—'],
    [`RSS median ${Math.round(warmAt)}–${Math.round(seconds * 0.3)} s (MB)`, rssWarm, '—', '—'],
    [`RSS median ${Math.round(seconds * 0.9)}–${Math.round(seconds)} s (MB)`, rssEnd, '—', '—'],
    ['RSS at end (MB)', rssEndPoint, '—', '—'],
    ['RSS max (MB)', rssMax, '—', '—'],
    [
      'RSS growth warm-up → end',
      `${(growth * 100).toFixed(1)}%`,
      `< ${TARGET.rssGrowth * 100}% (flat)`,
      yes(rssFlat),
    ],
    ['RSS slope after warm-up (MB/min)', slopeMbPerMin, '—', '—'],
  ];
  process.stdout.write(
    [
      '',
      machineLine(m),
      `load average at end ${machine().loadAverage.join(' ')}; DEMO_SPEED=${SPEED}; service ready after ${demo.readySeconds.toFixed(1)} s, settled after another ${demo.settleSeconds.toFixed(1)} s`,
      `wrk -t1 -c${CONNECTIONS} -d${DURATION} --latency -s bench/wrk/mixed.lua, ${wrk.requests} requests; harness cycles during the run: ${cyclesBefore !== null && cyclesAfter !== null ? cyclesAfter - cyclesBefore : '?'}`,
      `routes: ${paths.join(' ')}`,
      ...(bad.length
        ? [
            `routes not answering 200 (before/after): ${bad.map((p) => `${p} ${statusBefore[p]}/${statusAfter[p]}`).join(', ')}`,
          ]
        : []),
      '',
      markdownTable(rows),
      '',
      `"flat" = median RSS over the last 10% of the run less than ${TARGET.rssGrowth * 100}% above the median over ${WARM_FRACTION * 100}–30% (warm-up = the first ${WARM_FRACTION * 100}%).`,
      `once-a-second probe (${probes} requests): ${missed.length ? `non-200 answers: ${missed.join('; ')}` : 'every answer 200'}`,
      '',
    ].join('\n'),
  );
  await writeResults('mixed-load', {
    startedAt,
    machine: m,
    settings: { duration: DURATION, connections: CONNECTIONS, threads: 1, demoSpeed: SPEED },
    routes: paths,
    statusBefore,
    statusAfter,
    harnessCycles: cyclesBefore !== null && cyclesAfter !== null ? cyclesAfter - cyclesBefore : null,
    wrk,
    probe: { requests: probes, nonOk: probeMisses, firstNonOkAtSeconds: probeFirstMiss },
    rss: {
      startMb: rssStart,
      warmAtSeconds: warmAt,
      warmPointMb: rssWarmPoint,
      warmMedianMb: rssWarm,
      endMedianMb: rssEnd,
      endPointMb: rssEndPoint,
      maxMb: rssMax,
      growth,
      slopeMbPerMin,
      samples,
    },
    targets: TARGET,
    met: { p99: p99Met && valid, rssFlat, valid },
  });
});
