/**
 * The deterministic dataset (src/demo/dataset.ts) scores its cells with the harness's own rule
 * (src/harness/cell-score.ts): its union is a real union of the trades each provider returned, its
 * samples are the ones the harness writes for the same answers, and 0/0 writes no capture.
 */
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sample } from '../src/core/samples.ts';
import { buildDataset, type ModelAnswer, modelTradeCycle, tradeCycleTimes } from '../src/demo/dataset.ts';
import { loadHarnessConfig } from '../src/harness/config.ts';
import { DigestSet, unionSize } from '../src/harness/digest-set.ts';
import { METRICS } from '../src/harness/families/metric-names.ts';
import { cycleFiveXxSample, scoreCell } from '../src/harness/families/trade-capture/cell-score.ts';
import { createMemoryStore } from '../src/harness/memory-store.ts';
import { startHarness } from '../src/harness/service.ts';
import { REFERENCE_TOKENS, type ReferenceToken } from '../src/harness/tokens.ts';
import { loadSpecs } from '../src/publication/load-specs.ts';
import { type StubRequest, type StubResponse, startStubServer } from '../src/sim/stub-server.ts';
import { BENCHMARKS_DIR, NOW } from './helpers/fixture.ts';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

const cellKey = (s: Sample) => `${s.t}|${s.labels.chain}|${s.labels.token}`;
const sampleKey = (s: Sample) => `${s.metric}|${JSON.stringify(Object.entries(s.labels).sort())}|${s.t}`;
/** Samples as a sorted list, so two writers that order them differently compare equal. */
const canonical = (xs: readonly Sample[]) =>
  [...xs].sort((a, b) => (sampleKey(a) < sampleKey(b) ? -1 : 1)).map((s) => [sampleKey(s), s.v]);

function byCell(samples: readonly Sample[]): Map<string, Sample[]> {
  const out = new Map<string, Sample[]>();
  for (const s of samples) {
    if (s.labels.chain === undefined) continue;
    const k = cellKey(s);
    const list = out.get(k);
    if (list) list.push(s);
    else out.set(k, [s]);
  }
  return out;
}

/** The trade ids a modelled answer stands for, as the hashes the harness would dedupe. */
function hashesOf(cell: { chain: string; token: string }, a: ModelAnswer): string[] {
  if (a.kind !== 'ok') return [];
  return Array.from({ length: a.count }, (_, i) => `${cell.chain}:${cell.token}:${a.start + i}`);
}

describe('the dataset union is a union, not the max', () => {
  const opts = { seed: 7, days: 1, end: NOW };

  it('the union sample is at least every count of the cell, and above the max where providers missed different trades', () => {
    const cells = byCell(buildDataset(opts));
    let above = 0;
    for (const [key, samples] of cells) {
      const union = samples.filter((s) => s.metric === METRICS.tokenTradeUnionCount);
      expect(union, key).toHaveLength(1);
      const max = Math.max(...samples.filter((s) => s.metric === METRICS.tokenTradeCount).map((s) => s.v));
      expect(union[0]?.v, key).toBeGreaterThanOrEqual(max);
      if ((union[0]?.v ?? 0) > max) above++;
    }
    expect(cells.size).toBe(48 * 10);
    expect(above).toBeGreaterThan(0);
  });

  it('equals the size of the union of the trades each provider returned', () => {
    const union = new Map(
      buildDataset(opts)
        .filter((s) => s.metric === METRICS.tokenTradeUnionCount)
        .map((s) => [cellKey(s), s.v]),
    );
    let above = 0;
    for (const t of tradeCycleTimes(opts)) {
      for (const cell of modelTradeCycle(opts.seed, t)) {
        const ids = new Set<number>();
        let max = 0;
        for (const a of cell.answers) {
          if (a.kind !== 'ok') continue;
          max = Math.max(max, a.count);
          for (let i = a.start; i < a.start + a.count; i++) ids.add(i);
          // Every returned trade is one that happened.
          expect(a.start + a.count).toBeLessThanOrEqual(cell.truth);
        }
        expect(union.get(`${t}|${cell.chain}|${cell.token}`)).toBe(ids.size);
        if (ids.size > max) above++;
      }
    }
    expect(above).toBeGreaterThan(0);
  });
});

describe("the dataset's samples are the harness's scoring of the same answers", () => {
  // A high failure rate so cycles with 5xx providers are common.
  const opts = { seed: 11, days: 1, end: NOW, failureRate: 0.3 };

  it('every cell and every 5xx sample re-scored from the modelled answers, through digest sets', () => {
    const data = buildDataset(opts).filter((s) => s.metric !== METRICS.networksSupported);
    const cells = byCell(data);
    let failures = 0;
    for (const t of tradeCycleTimes(opts)) {
      const tally = new Map<string, { probes: number; fiveXx: number }>();
      for (const cell of modelTradeCycle(opts.seed, t, opts.failureRate)) {
        const sets = cell.answers.map((a) => {
          const d = new DigestSet(10_000);
          for (const h of hashesOf(cell, a)) d.add(h);
          return d;
        });
        const score = scoreCell({
          chain: cell.chain,
          token: cell.token,
          at: t,
          outcomes: cell.answers.map((a, i) => ({
            provider: a.provider,
            outcome:
              a.kind === 'ok'
                ? { kind: 'ok', count: sets[i]?.size ?? 0, capped: false }
                : { kind: 'provider_failure', fiveXx: true },
          })),
          unionCount: unionSize(sets.filter((_, i) => cell.answers[i]?.kind === 'ok')),
        });
        expect(canonical(cells.get(`${t}|${cell.chain}|${cell.token}`) ?? [])).toEqual(
          canonical(score.samples),
        );
        for (const a of cell.answers) {
          const x = tally.get(a.provider) ?? { probes: 0, fiveXx: 0 };
          x.probes++;
          if (a.kind === '5xx') {
            x.fiveXx++;
            failures++;
          }
          tally.set(a.provider, x);
        }
      }
      const fiveXx = data.filter((s) => s.metric === METRICS.providerCycle5xx && s.t === t);
      const expected = [...tally].map(([p, x]) =>
        cycleFiveXxSample('token-trade-coverage', p, t, x.fiveXx, x.probes),
      );
      expect(canonical(fiveXx)).toEqual(canonical(expected.filter((s): s is Sample => s !== null)));
    }
    expect(failures).toBeGreaterThan(0);
  });

  it('a dataset cell with a 5xx provider is what a real harness cycle writes for the same answers', async () => {
    const bonk = REFERENCE_TOKENS[0] as ReferenceToken;
    const t = tradeCycleTimes(opts).find((x) => {
      const answers = modelTradeCycle(opts.seed, x, opts.failureRate)[0]?.answers ?? [];
      return answers.some((a) => a.kind === '5xx') && answers.some((a) => a.kind === 'ok');
    });
    if (t === undefined) throw new Error('no cycle with both a 5xx and an answer');
    const cell = modelTradeCycle(opts.seed, t, opts.failureRate)[0];
    if (cell?.token !== bonk.symbol) throw new Error('the first dataset cell is not BONK');
    const answer = (p: string): ModelAnswer | undefined => cell.answers.find((a) => a.provider === p);
    const reply = (p: string, body: (h: string[]) => unknown): StubResponse => {
      const a = answer(p);
      if (a?.kind !== 'ok') return { status: 503, body: '{}' };
      return { body: JSON.stringify(body(hashesOf(cell, a))) };
    };
    const stub = await startStubServer((r: StubRequest) => {
      if (r.path.startsWith('/mobula/')) {
        return reply('mobula', (h) => ({
          data: h.map((transactionHash) => ({ transactionHash, type: 'buy', date: t - 1000 })),
          pagination: { count: h.length, nextCursor: null, hasMore: false },
        }));
      }
      if (r.path.startsWith('/bitquery/')) {
        return reply('bitquery', (h) => ({
          data: { Solana: { DEXTradeByTokens: h.map((Signature) => ({ Transaction: { Signature } })) } },
        }));
      }
      return reply('codex', (h) => ({
        data: { getTokenEvents: { items: h.map((transactionHash) => ({ transactionHash })), cursor: null } },
      }));
    });
    cleanup.push(() => stub.close());
    const env: Record<string, string> = { HARNESS_MAX_RETRIES: '0' };
    for (const p of ['mobula', 'bitquery', 'codex']) {
      env[`${p.toUpperCase()}_BASE_URL`] = `${stub.url}/${p}`;
      env[`${p.toUpperCase()}_API_KEY`] = 'k';
    }
    const mem = createMemoryStore();
    const written: Sample[] = [];
    const store = {
      ...mem,
      append: (xs: readonly Sample[]) => {
        written.push(...xs);
        return mem.append(xs);
      },
    };
    const h = startHarness({
      store,
      specs: await loadSpecs(BENCHMARKS_DIR),
      metrics: new Registry(),
      harnessConfig: loadHarnessConfig(env),
      tokens: [bonk],
      autoStart: false,
      sleep: async () => {},
    });
    cleanup.push(() => h.stop());
    await h.runCycle('token-trade-coverage', t);

    const dataset = buildDataset(opts).filter((s) => s.t === t);
    const ofBonk = (xs: readonly Sample[]) =>
      xs.filter((s) => s.labels.chain === 'solana' && s.labels.token === 'BONK');
    expect(canonical(ofBonk(written))).toEqual(canonical(ofBonk(dataset)));
    // The failed provider failed every cell of the dataset cycle, so both call it a cycle of 5xx.
    const cycle5xx = (xs: readonly Sample[]) => xs.filter((s) => s.metric === METRICS.providerCycle5xx);
    expect(canonical(cycle5xx(written))).toEqual(canonical(cycle5xx(dataset)));
    expect(cycle5xx(written).some((s) => s.v === 1)).toBe(true);
  });
});

describe('no 0/0 in the dataset', () => {
  it('a cell where every provider returned zero stores probe, count and capped samples but no capture', () => {
    // Every provider fails every cycle: each cell's counts are all zero.
    const data = buildDataset({ seed: 3, days: 1, end: NOW, failureRate: 1 });
    const trade = data.filter((s) => s.labels.chain !== undefined);
    expect(trade.filter((s) => s.metric === METRICS.tokenTradeCapturePct)).toEqual([]);
    const probes = trade.filter((s) => s.metric === METRICS.tokenTradeProbeOk);
    // 48 cycles × (8 cells × 3 providers + 2 Stellar cells × mobula).
    expect(probes).toHaveLength(48 * 26);
    expect(probes.every((s) => s.v === 0)).toBe(true);
    const counts = trade.filter((s) => s.metric === METRICS.tokenTradeCount);
    expect(counts).toHaveLength(48 * 26);
    expect(counts.every((s) => s.v === 0)).toBe(true);
    expect(trade.filter((s) => s.metric === METRICS.tokenTradeCapped)).toHaveLength(48 * 26);
    expect(trade.filter((s) => s.metric === METRICS.tokenTradeUnionCount).map((s) => s.v)).toEqual(
      Array(48 * 10).fill(0),
    );
  });

  it('the scoring: every provider answered with zero trades, so probes are ok and nothing is a score', () => {
    const score = scoreCell({
      chain: 'solana',
      token: 'BONK',
      at: NOW,
      outcomes: [
        { provider: 'mobula', outcome: { kind: 'ok', count: 0, capped: false } },
        { provider: 'bitquery', outcome: { kind: 'ok', count: 0, capped: false } },
        { provider: 'codex', outcome: { kind: 'ours' } },
      ],
      unionCount: 0,
    });
    expect(score.samples.map((s) => [s.metric, s.labels.provider ?? '', s.v])).toEqual([
      [METRICS.tokenTradeCount, 'mobula', 0],
      [METRICS.tokenTradeProbeOk, 'mobula', 1],
      [METRICS.tokenTradeCapped, 'mobula', 0],
      [METRICS.tokenTradeCount, 'bitquery', 0],
      [METRICS.tokenTradeProbeOk, 'bitquery', 1],
      [METRICS.tokenTradeCapped, 'bitquery', 0],
      [METRICS.tokenTradeUnionCount, '', 0],
    ]);
    expect(score.providers.map((p) => p?.pct)).toEqual([null, null, undefined]);
  });
});
