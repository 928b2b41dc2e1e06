/**
 * Prints the demo's published answers (seeded simulator, real harness cycles, a fixed clock) so a
 * change of methodology can be compared before and after on identical inputs:
 * the unfiltered and per-chain token-trade rankings (capture beside recall against the chain on the
 * EVM chains), the network-coverage and json-rpc rankings, and the compare
 * answers of every provider pair. `--hours-before H` evaluates every view H hours before the demo's
 * end (e.g. 16: the window then holds the seeded 503 outage and the refused key).
 * Run: npx tsx bench/demo-rankings.ts [--seed 42] [--hours-before 16] [--json]
 */
import { Registry } from 'prom-client';
import { testConfig } from '../src/config.ts';
import { startHarnessDemo } from '../src/demo/harness-demo.ts';
import { loadSpecs } from '../src/publication/load-specs.ts';
import { createPublication } from '../src/publication/publication.ts';
import { openDuckDbStore } from '../src/store/duckdb-store.ts';

const i = process.argv.indexOf('--seed');
const seed = i >= 0 ? Number(process.argv[i + 1]) : 42;
const j = process.argv.indexOf('--hours-before');
const hoursBefore = j >= 0 ? Number(process.argv[j + 1]) : 0;
const NOW = Date.UTC(2026, 10, 20, 12, 7);
const EVAL = NOW - hoursBefore * 3_600_000;
const specs = await loadSpecs(new URL('../benchmarks', import.meta.url).pathname);
const store = await openDuckDbStore({ path: ':memory:' });
const demo = await startHarnessDemo({ store, specs, metrics: new Registry(), seed, days: 3, now: NOW });
await demo.stop();
const pub = createPublication({ specs, store, config: testConfig(), clock: () => EVAL });

type Row = {
  slug: string;
  rank: number | null;
  ms: { p50: number; mean: number };
  sampleSize: number;
  successRate: number;
};
const out: Record<string, unknown> = {};
const show = (title: string, rows: readonly Row[]) => {
  console.log(title);
  for (const r of rows) {
    const extra = r as Row & {
      noComparison?: boolean;
      unresponsive?: boolean;
      unionCapture?: unknown;
      recall?: { p50: number } | null;
      // Issue 24's fields, absent on the code before it: printed when present.
      ci95?: { p50: [number, number] | null } | null;
      vsLeader?: { pairs: number; pValue: number };
      tiedWithLeader?: boolean;
      insufficientData?: boolean;
    };
    const unc = [
      extra.ci95?.p50 ? `  ci95 [${extra.ci95.p50.join(', ')}]` : '',
      extra.vsLeader ? `  vsLeader p ${extra.vsLeader.pValue} (${extra.vsLeader.pairs} cycles)` : '',
      extra.tiedWithLeader ? '  TIED with leader' : '',
      extra.insufficientData ? '  insufficientData' : '',
    ].join('');
    console.log(
      `  ${String(r.rank ?? '-').padStart(2)} ${r.slug.padEnd(13)} p50 ${String(r.ms.p50).padStart(8)}  mean ${String(r.ms.mean).padStart(8)}  n ${String(r.sampleSize).padStart(4)}  ok ${String(r.successRate).padStart(7)}%${extra.noComparison ? '  noComparison' : ''}${extra.unresponsive ? '  unresponsive' : ''}${extra.unionCapture ? `  union ${JSON.stringify(extra.unionCapture)}` : ''}${extra.recall ? `  recall p50 ${extra.recall.p50}` : ''}${unc}`,
    );
  }
};
for (const [slug, filters] of [
  ['token-trade-coverage', null],
  ['token-trade-coverage', { chain: 'stellar' }],
  ['token-trade-coverage', { chain: 'solana' }],
  // Capture beside recall on the EVM chains, where the chain itself is the ground truth.
  ['token-trade-coverage', { chain: 'ethereum' }],
  ['token-trade-recall', { chain: 'ethereum' }],
  ['token-trade-coverage', { chain: 'bsc' }],
  ['token-trade-recall', { chain: 'bsc' }],
  ['token-trade-coverage', { chain: 'base' }],
  ['token-trade-recall', { chain: 'base' }],
  ['token-trade-recall', null],
  ['network-coverage', null],
  ['rpc-latency', null],
  ['rpc-head-lag', null],
] as const) {
  const s = (await pub.stat(slug, filters)).value;
  show(
    `${slug}${filters ? ` ${JSON.stringify(filters)}` : ''}: value ${s.value}${s.groundTruth ? ` groundTruth ${JSON.stringify(s.groundTruth)}` : ''} — ${s.headline}`,
    s.rankings,
  );
  out[`${slug}${filters ? `?chain=${filters.chain}` : ''}`] = s.rankings;
}
const providers = [...new Set(specs.flatMap((s) => s.providers.map((p) => p.slug)))].sort();
console.log('compare (every pair sharing a benchmark):');
for (let a = 0; a < providers.length; a++) {
  for (let b = a + 1; b < providers.length; b++) {
    const r = await pub.compare(providers[a] as string, providers[b] as string);
    if (!r.ok) continue;
    const c = r.served.value as {
      totalWins: unknown;
      notComparable?: number;
      shared: Array<{
        slug: string;
        winner: string;
        aValue: number | null;
        bValue: number | null;
        reason?: string;
        significance?: { pairs: number; pValue: number };
      }>;
    };
    const rows = c.shared
      .map(
        (x) =>
          `${x.slug}: ${x.winner}${x.reason ? ` (${x.reason})` : ''} ${x.aValue}/${x.bValue}${x.significance ? ` p ${x.significance.pValue}/${x.significance.pairs}` : ''}`,
      )
      .join('; ');
    console.log(`  ${providers[a]} vs ${providers[b]}: ${JSON.stringify(c.totalWins)} ${rows}`);
  }
}
if (process.argv.includes('--json')) console.log(JSON.stringify(out));
pub.close();
await store.close();
