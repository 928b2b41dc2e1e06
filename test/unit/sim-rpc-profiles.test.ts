import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RPC_PROFILE_RANGES, rpcProfile } from '../../src/sim/profiles.ts';
import { DEMO_REGIONS, SIM_RPC_PROVIDERS } from '../../src/sim/rpc/providers.ts';
import { type RpcSimulator, startRpcSimulator } from '../../src/sim/rpc/server.ts';

// No request is sent here: profiles are drawn without the node.
const node = 'http://127.0.0.1:9';

describe('RPC simulator: profiles are drawn by the one rule', () => {
  it('the same seed draws the same profiles in two simulators; another seed differs', async () => {
    const [a, b, c] = await Promise.all(
      [7, 7, 8].map((seed) => startRpcSimulator({ seed, upstream: { ethereum: node } })),
    );
    try {
      const all = (x: RpcSimulator) =>
        DEMO_REGIONS.flatMap((r) => SIM_RPC_PROVIDERS.map((p) => x.profileOf(r, p)));
      expect(all(a as RpcSimulator)).toEqual(all(b as RpcSimulator));
      expect(all(a as RpcSimulator)).not.toEqual(all(c as RpcSimulator));
    } finally {
      await Promise.all([a, b, c].map((x) => x?.close()));
    }
  });

  it('every provider draws from the same ranges and no provider is always the fastest', () => {
    const leads: Record<string, number> = {};
    const R = RPC_PROFILE_RANGES;
    for (let seed = 1; seed <= 50; seed++) {
      for (const region of DEMO_REGIONS) {
        let best = '';
        let bestMs = Number.POSITIVE_INFINITY;
        for (const p of SIM_RPC_PROVIDERS) {
          const prof = rpcProfile(seed, p, region);
          expect(prof.medianMs).toBeGreaterThanOrEqual(15);
          expect(prof.medianMs).toBeLessThanOrEqual(150);
          expect(prof.headLag).toBeGreaterThanOrEqual(0);
          expect(prof.headLag).toBeLessThanOrEqual(3);
          expect(prof.wrongRate).toBeLessThanOrEqual(0.005);
          expect(prof.nonCanonicalRate).toBeLessThanOrEqual(0.003);
          expect(prof.stallRate).toBeLessThanOrEqual(R.stallRate[1]);
          if (prof.medianMs < bestMs) [best, bestMs] = [p, prof.medianMs];
        }
        leads[best] = (leads[best] ?? 0) + 1;
      }
    }
    for (const p of SIM_RPC_PROVIDERS) expect(leads[p] ?? 0, `${p} never leads`).toBeGreaterThan(0);
  });

  it('no provider slug appears in the code that draws RPC behaviour', () => {
    for (const f of ['src/sim/profiles.ts', 'src/sim/rpc/draws.ts', 'src/sim/rpc/answers.ts']) {
      const src = readFileSync(new URL(`../../${f}`, import.meta.url), 'utf8');
      for (const p of SIM_RPC_PROVIDERS) expect(src, `${f} names ${p}`).not.toContain(`'${p}'`);
    }
  });
});
