import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FREEZE_GRACE_MS } from '../../src/publication/day-freezer.ts';

const ROOT = resolve(import.meta.dirname, '../..');

function startDemo(dataDir: string, port: number): { child: ChildProcess; log: () => string } {
  let out = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/demo/main.ts'], {
    cwd: ROOT,
    // vitest exports BASE_URL=/ (Vite's), so set it as a user would.
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      BASE_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'info',
      // Unset, as in the quick start: the demo defaults it (issue 25).
      SOURCE_URL: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  return { child, log: () => out };
}

async function until200(url: string, ms: number, child: ChildProcess): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (child.exitCode !== null) throw new Error(`the demo exited with code ${child.exitCode}`);
    try {
      const r = await fetch(url);
      await r.arrayBuffer();
      if (r.status === 200) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} not up within ${ms} ms`);
}

function exitCode(child: ChildProcess): Promise<number | null> {
  return new Promise((r) => (child.exitCode !== null ? r(child.exitCode) : child.once('exit', (c) => r(c))));
}

let running: ChildProcess | undefined;
afterEach(() => {
  running?.kill('SIGKILL');
});

describe('npm run demo (the README quick start)', () => {
  it('backfills 3 days with real harness cycles, serves them, stops on SIGTERM and resumes without rewriting history', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'demo-'));
    const port = 19_000 + Math.floor(Math.random() * 500);
    const base = `http://127.0.0.1:${port}`;
    const first = startDemo(dir, port);
    running = first.child;
    await until200(`${base}/healthz`, 300_000, first.child).catch((e: Error) => {
      throw new Error(`${e.message}\n--- demo output ---\n${first.log().slice(-3000)}`);
    });
    expect(first.log()).toMatch(/backfilling 3 days: 156\/156 cycles/);
    expect(first.log()).toMatch(/demo ready backfilledCycles=156 /);

    type Row = { slug: string; rank: number | null; sampleSize: number; noComparison: boolean };
    const idx = await (await fetch(`${base}/api/citable`)).json();
    // Without SOURCE_URL the demo names the methodology's harness section as every source.
    expect(new Set(idx.benchmarks.map((b: { source: string }) => b.source))).toEqual(
      new Set([`${base}/methodology#harness`]),
    );
    expect(idx.benchmarks.map((b: { status: string }) => b.status)).toEqual([
      'live',
      'live',
      'live',
      'live',
      'live',
    ]);
    // Recall against the demo chains' own swaps: the EVM cells of the last 6 h had ground truth.
    const recall = await (await fetch(`${base}/api/stat/token-trade-recall?chain=ethereum`)).json();
    expect(recall.rankings.filter((r: Row) => r.rank !== null)).toHaveLength(3);
    expect(recall.groundTruth.status).not.toBe('unavailable');
    const audit = await (await fetch(`${base}/api/audit/token-trade-recall/codex`)).json();
    const cell = audit.cells.find((c: { chain: string }) => c.chain === 'ethereum');
    expect(cell.groundTruth).toMatchObject({ status: 'ok', reason: null });
    expect(cell.groundTruth.count).toBeGreaterThan(0);
    // The json-rpc family measured real nodes from three regions; regions are per benchmark.
    expect(first.log()).toMatch(/backfilling 6 h of RPC slots in 3 regions: 72\/72/);
    const rpc = await (await fetch(`${base}/api/stat/rpc-latency?region=eu-west`)).json();
    expect(rpc.rankings.length).toBe(8);
    // Live data: the top may be a lead, a tie or conflicting evidence; the headline names the leader either way.
    expect(rpc.headline).toMatch(
      / (is fastest at|are statistically tied at the top|cannot be separated at the top) /,
    );
    expect(rpc.headline).toContain(rpc.rankings[0].name);
    expect((await fetch(`${base}/api/stat/network-coverage?region=eu-west`)).status).toBe(404);
    // The published trade numbers follow the methodology end to end: Stellar (Mobula alone) is
    // shown without a comparison and stays out of the aggregate, whose samples are exactly the
    // per-chain ones of the four comparable chains.
    const tradeStat = async (q = '') => (await fetch(`${base}/api/stat/token-trade-coverage${q}`)).json();
    const stellar = await tradeStat('?chain=stellar');
    expect(stellar.value).toBeNull();
    expect(stellar.rankings.map((r: Row) => [r.slug, r.rank, r.noComparison])).toEqual([
      ['mobula', null, true],
    ]);
    const all = await tradeStat();
    expect(
      all.rankings.every((r: Row & { unionCapture: unknown }) => !r.noComparison && r.unionCapture),
    ).toBe(true);
    const perChain = new Map<string, number>();
    for (const chain of ['solana', 'ethereum', 'bsc', 'base']) {
      for (const r of (await tradeStat(`?chain=${chain}`)).rankings as Row[])
        perChain.set(r.slug, (perChain.get(r.slug) ?? 0) + r.sampleSize);
    }
    for (const r of all.rankings as Row[]) expect(r.sampleSize).toBe(perChain.get(r.slug));
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/^networks_supported\{provider="geckoterminal"\} \d+/m);
    expect(metrics).toMatch(/^fetch_errors_total\{/m);
    // Once ready, live views are computed off the request path (src/publication/prewarm.ts).
    expect(Number(/^publication_prewarm_views_total (\d+)/m.exec(metrics)?.[1] ?? 0)).toBeGreaterThan(0);
    // The newest closed day past its freeze grace (10 min): in the first minutes after 00:00 UTC
    // yesterday is not frozen yet (404 not_frozen), so the day before it is taken (the demo has 3).
    const sinceMidnight = Date.now() % 86_400_000;
    const daysBack = sinceMidnight < FREEZE_GRACE_MS + 5 * 60_000 ? 2 : 1;
    const yesterday = new Date(Date.now() - daysBack * 86_400_000).toISOString().slice(0, 10);
    const snap = await fetch(`${base}/api/citable/${yesterday}`);
    expect(snap.status).toBe(200);
    const snapBody = await snap.text();

    first.child.kill('SIGTERM');
    expect(await exitCode(first.child)).toBe(0);

    const second = startDemo(dir, port);
    running = second.child;
    await until200(`${base}/healthz`, 120_000, second.child);
    expect(second.log()).toMatch(/demo ready backfilledCycles=0 /);
    expect(await (await fetch(`${base}/api/citable/${yesterday}`)).text()).toBe(snapBody);
    second.child.kill('SIGTERM');
    expect(await exitCode(second.child)).toBe(0);
  }, 480_000);
});
