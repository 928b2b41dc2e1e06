/**
 * Writes every sample benchmark's OG PNG and its SVG sparkline in both themes to out/samples/, for
 * a human to look at. Renders through the real worker, as the service does.
 *   npx tsx scripts/render-samples.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Stat } from '../src/core/api-schemas.ts';
import { ImageService } from '../src/render/image-service.ts';
import { ServiceWorkers } from '../src/workers/service-workers.ts';
import { fakePublication, makeStat, sampleStats, series } from '../test/fixtures/sample-stats.ts';

const OUT = resolve(import.meta.dirname, '../out/samples');

/** Worst cases for layout: long title, long site name, long slug, big value, non-ASCII names. */
function stressStats(): Stat[] {
  return [
    makeStat({
      slug: 'cross-chain-bridge-settlement-latency-for-stablecoin-transfers-between-evm-rollups',
      number: '105',
      title:
        'Cross-chain bridge settlement latency for stablecoin transfers between EVM rollups and Solana, measured end to end',
      category: 'Bridges and cross-chain messaging',
      metric: 'settlement latency p50 across all measured routes and tokens',
      unit: 'ms',
      higherIsBetter: false,
      providers: [{ name: 'Señor Bridge Protocol Aggregator Élite', slug: 'senor', value: 1234567 }],
      sparkline: series(1_300_000, 60_000, 90_000, -100_000),
    }),
    makeStat({
      slug: 'solana-rpc-slot-freshness',
      number: '107',
      title: 'Slot freshness of public Solana RPC endpoints under sustained load',
      category: 'RPC',
      metric: 'slots behind tip',
      unit: 'slots',
      higherIsBetter: false,
      providers: [{ name: 'Helius', slug: 'helius', value: 1.5 }],
      sparkline: series(2, 0.5, 1.5),
    }),
    makeStat({
      slug: 'rpc-requests-served',
      number: '106',
      title: 'RPC requests served',
      category: 'RPC',
      metric: 'requests served',
      unit: 'count',
      higherIsBetter: true,
      providers: [{ name: 'Alchemy', slug: 'alchemy', value: 1234567890123 }],
      sparkline: [5],
    }),
  ];
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const stats = [...sampleStats(), ...stressStats()];
  const pub = fakePublication(stats);
  const longName = new ImageService({
    publication: pub,
    siteName: 'Citebench — open, reproducible, citable benchmarks of crypto infrastructure',
    renderer: new ServiceWorkers(1),
  });
  const images = new ImageService({
    publication: pub,
    siteName: 'Citebench',
    renderer: new ServiceWorkers(1),
  });
  try {
    for (const s of stats) {
      const t0 = performance.now();
      const og = await images.getOg(s.slug);
      const ms = performance.now() - t0;
      writeFileSync(join(OUT, `${s.slug.slice(0, 40)}.png`), og.body);
      for (const theme of ['light', 'dark'] as const) {
        const svg = await images.getSvg(s.slug, { w: 240, h: 60, theme });
        writeFileSync(join(OUT, `${s.slug.slice(0, 40)}-${theme}.svg`), svg.body);
      }
      process.stdout.write(`${s.slug.slice(0, 40).padEnd(42)} og ${ms.toFixed(0)} ms\n`);
    }
    const og = await longName.getOg('network-coverage');
    writeFileSync(join(OUT, 'long-site-name.png'), og.body);
    process.stdout.write(`wrote ${OUT}\n`);
  } finally {
    await images.close();
    await longName.close();
  }
}

await main();
