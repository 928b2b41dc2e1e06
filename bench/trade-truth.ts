/**
 * Truth of one cell (issue 23, bench): a 60-minute window of 50,000 swaps (300 blocks 12 s apart,
 * ~167 swaps each, over two pools of the token) read through the Infura profile at its REAL limits
 * (scale 1: 10,000 results and 10,000 blocks per eth_getLogs), so the reader must split the window
 * into ~6 ranges from the suggested-range errors. Targets: < 5 s and < 100 MB growth.
 *
 * Anvil and the limits proxy run in other processes (the proxy in a child fork of this file), so
 * this process holds only the reader. Only the read is timed (building 50,000 swaps on anvil takes
 * about a minute). Live memory = heapUsed + arrayBuffers after a forced GC, sampled every 100 ms,
 * growth over the baseline before the read; peak RSS growth is shown for information (the
 * allocator keeps freed pages). MB = 2^20 bytes.
 * Run: node --expose-gc --import tsx bench/trade-truth.ts [--swaps 50000] [--blocks 300]
 */
import { fork } from 'node:child_process';
import { dexDeployment } from '../src/harness/families/trade-capture/dexes.ts';
import type { GetLogsStats } from '../src/harness/families/trade-capture/logs.ts';
import { createTruthReader } from '../src/harness/families/trade-capture/truth.ts';
import { startLogLimitsProxy } from '../test/helpers/log-limits-proxy.ts';
import { deployV2Dex, startTestAnvil, type TxSpec } from '../test/helpers/v2-dex.ts';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const MB = 1024 * 1024;

if (process.argv.includes('--proxy')) {
  // The child: the limits proxy at scale 1, its URL sent to the parent.
  const upstream = process.argv[process.argv.indexOf('--proxy') + 1] as string;
  const proxy = await startLogLimitsProxy(upstream, 1);
  process.send?.({ url: proxy.url('infura') });
  process.on('disconnect', () => void proxy.close().then(() => process.exit(0)));
} else {
  await main();
}

async function main(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) {
    console.error(
      'run with node --expose-gc --import tsx bench/trade-truth.ts: live memory needs a forced GC',
    );
    process.exit(2);
  }
  const SWAPS = arg('--swaps', 50_000);
  const BLOCKS = arg('--blocks', 300);
  const node = await startTestAnvil({ genesisSec: 1_767_225_600 });
  const child = fork(new URL(import.meta.url).pathname, ['--proxy', node.url], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const proxyUrl = await new Promise<string>((r) =>
      child.once('message', (m) => r((m as { url: string }).url)),
    );
    const dex = await deployV2Dex(node);
    const paths: TxSpec[] = [
      { kind: 'swap', path: [dex.tkn, dex.weth] },
      { kind: 'swap', path: [dex.tkn, dex.quote] },
    ];
    const first = dex.clockSec + 12;
    const built = performance.now();
    let sent = 0;
    for (let b = 0; b < BLOCKS; b++) {
      const n = Math.round(((b + 1) * SWAPS) / BLOCKS) - sent;
      await dex.block(
        Array.from({ length: n }, (_, i) => paths[(sent + i) % 2] as TxSpec),
        first + b * 12,
      );
      sent += n;
    }
    await dex.mineEmpty(70);
    const buildS = (performance.now() - built) / 1000;

    const stats: GetLogsStats = { requests: 0, limitErrors: 0 };
    const reader = createTruthReader({
      references: new Map([['anvil', proxyUrl]]),
      dexes: () => [
        dexDeployment('anvil', 'uniswap-v2', 'uniswap-v2', dex.factory, dex.factoryBlock, 'bench'),
      ],
      timeoutMs: 30_000,
      stats,
    });
    const live = (): number => {
      gc();
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const base = live();
    const rss0 = process.memoryUsage().rss;
    let peakLive = base;
    let peakRss = rss0;
    let gcMs = 0;
    const sampler = setInterval(() => {
      const t = performance.now();
      peakLive = Math.max(peakLive, live());
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      gcMs += performance.now() - t;
    }, 100);
    const t0 = performance.now();
    const truth = await reader.read('anvil', dex.tkn, {
      startMs: first * 1000,
      endMs: (first + BLOCKS * 12) * 1000,
    });
    const wallMs = performance.now() - t0;
    clearInterval(sampler);
    peakLive = Math.max(peakLive, live());
    if (truth.status !== 'ok') throw new Error(`truth unavailable: ${truth.reason}: ${truth.message}`);
    console.log(
      JSON.stringify(
        {
          swaps: sent,
          blocks: BLOCKS,
          buildS: Number(buildS.toFixed(1)),
          truth: {
            all: truth.all.size,
            finalized: truth.finalized.size,
            fromBlock: truth.fromBlock,
            toBlock: truth.toBlock,
          },
          profile: 'infura, real limits (10,000 results / 10,000 blocks)',
          requests: stats.requests,
          limitErrors: stats.limitErrors,
          readMs: Math.round(wallMs - gcMs),
          samplerGcMs: Math.round(gcMs),
          liveGrowthMB: Number(((peakLive - base) / MB).toFixed(1)),
          peakRssGrowthMB: Number(((peakRss - rss0) / MB).toFixed(1)),
          pass: wallMs - gcMs < 5_000 && (peakLive - base) / MB < 100 && truth.finalized.size === sent,
        },
        null,
        2,
      ),
    );
  } finally {
    child.disconnect();
    await node.stop();
  }
}
