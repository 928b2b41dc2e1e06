import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeFunctionData } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { BALANCE_OF_ABI } from '../../src/harness/families/json-rpc/methods.ts';
import { REFERENCE_TOKENS } from '../../src/harness/tokens.ts';
import type { Clock, LogLevel } from '../../src/harness/types.ts';
import { makeDemoChain, readNonces } from '../../src/sim/chains/demo-chain.ts';
import { HISTORY_VERSION, plannedBlock } from '../../src/sim/chains/history.ts';
import {
  BLOCK_TIME_MS,
  DEMO_CHAINS,
  type DemoChain,
  HOLDERS,
  startDemoChains,
} from '../../src/sim/chains/index.ts';
import { RpcClient } from '../../src/sim/chains/rpc.ts';

/** Real anvil nodes throughout; every one started here is stopped in afterAll, also after a failure. */
const ORIGIN = Date.UTC(2026, 0, 1, 12);
const chains: DemoChain[] = [];
const dirs: string[] = [];

afterAll(async () => {
  await Promise.allSettled(chains.map((c) => c.stop()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'sim-chains-'));
  dirs.push(d);
  return d;
}

async function start(opts: Parameters<typeof startDemoChains>[0]): Promise<DemoChain[]> {
  const started = await startDemoChains(opts);
  chains.push(...started);
  return started;
}

/** Block n's time on an unstretched history. */
const at = (n: number): number => ORIGIN + (n - 1) * BLOCK_TIME_MS;

async function hashes(c: DemoChain, upTo: number): Promise<string[]> {
  const rpc = new RpcClient(c.node.url);
  const calls = Array.from({ length: upTo + 1 }, (_, n) => ({
    method: 'eth_getBlockByNumber',
    params: [`0x${n.toString(16)}`, false],
  }));
  return ((await rpc.batch(calls)) as Array<{ hash: string }>).map((b) => b.hash);
}

describe('demo chains', () => {
  it('are the EVM chains of REFERENCE_TOKENS', () => {
    const evm = [...new Set(REFERENCE_TOKENS.filter((t) => t.address.startsWith('0x')).map((t) => t.chain))];
    expect(DEMO_CHAINS.map((c) => c.chain)).toEqual(evm);
    expect(DEMO_CHAINS.map((c) => c.chainId)).toEqual([1, 56, 8453]);
  });

  it('two fresh builds give identical block hashes; another seed does not', async () => {
    const [a, b, other] = await Promise.all([
      start({ seed: 7, origin: ORIGIN }),
      start({ seed: 7, origin: ORIGIN }),
      start({ seed: 8, origin: ORIGIN, chains: ['ethereum'] }),
    ]);
    await Promise.all([...a, ...b, ...other].map((c) => c.buildTo(at(50))));
    for (const [i, c] of a.entries()) {
      const d = b[i] as DemoChain;
      expect(c.head()).toEqual({ number: 50, timestampMs: at(50) });
      const h = await hashes(c, 50);
      expect(await hashes(d, 50)).toEqual(h);
      expect(new Set(h).size).toBe(51);
    }
    const eth = a[0] as DemoChain;
    const theirs = await hashes(other[0] as DemoChain, 50);
    expect(theirs[0]).toBe((await hashes(eth, 0))[0]); // same genesis: the seed starts at block 1
    expect(theirs[50]).not.toBe((await hashes(eth, 50))[50]);
  });

  it("holds Transfer logs of each chain's first reference token, balances readable", async () => {
    const built = await start({ seed: 3, origin: ORIGIN });
    await Promise.all(built.map((c) => c.buildTo(at(100))));
    for (const c of built) {
      const token = REFERENCE_TOKENS.find((t) => t.chain === c.chain)?.address.toLowerCase() as string;
      const rpc = new RpcClient(c.node.url);
      const logs = await rpc.call<Array<{ address: string }>>('eth_getLogs', [
        { address: token, fromBlock: '0x1', toBlock: '0x64' },
      ]);
      expect(logs.length).toBeGreaterThan(20);
      expect(logs.every((l) => l.address === token)).toBe(true);
      const data = encodeFunctionData({
        abi: BALANCE_OF_ABI,
        functionName: 'balanceOf',
        args: [HOLDERS[0] as `0x${string}`],
      });
      expect(BigInt(await rpc.call<string>('eth_call', [{ to: token, data }, 'latest']))).toBeGreaterThan(0n);
      // Block 100 holds its transfers and swaps, as planned.
      const txs = await rpc.call<string>('eth_getBlockTransactionCountByNumber', ['latest']);
      expect(Number(txs)).toBe(plannedBlock(3, c.chain, c.chainId, 100).txs.length);
    }
  });

  it('buildTo(T) leaves the newest block with timestamp ≤ T; idempotent and monotonic', async () => {
    const [c] = (await start({ seed: 5, origin: ORIGIN + 345, chains: ['bsc'] })) as [DemoChain];
    expect(c.origin).toBe(ORIGIN); // floored to whole seconds
    const t = at(20) + 7_000;
    await c.buildTo(t);
    const rpc = new RpcClient(c.node.url);
    const latest = async () =>
      rpc.call<{ number: string; timestamp: string; hash: string }>('eth_getBlockByNumber', [
        'latest',
        false,
      ]);
    const first = await latest();
    expect(Number(first.timestamp) * 1000).toBeLessThanOrEqual(t);
    expect(Number(first.timestamp) * 1000 + BLOCK_TIME_MS).toBeGreaterThan(t);
    expect(c.head()).toEqual({ number: 20, timestampMs: at(20) });
    await c.buildTo(t);
    await c.buildTo(t - 60_000);
    expect(await latest()).toEqual(first);
  });
});

/**
 * A block mined once the clock is moved (an RPC to anvil): quiet, within ~20 ms; the bound
 * (expect.poll's default is 1 s) is against a hang only.
 */
const MINED = { timeout: 30_000 };

/** A demo clock moved by hand: timers fire in order as it advances. */
class ManualClock implements Clock {
  private timers: Array<{ id: number; at: number; fn: () => void }> = [];
  private ids = 0;
  constructor(private t: number) {}
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    this.timers.push({ id: ++this.ids, at: this.t + ms, fn });
    return this.ids;
  }
  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((x) => x.id !== handle);
  }
  /** Moves the clock on and fires the timers due; says how many it fired. */
  advance(ms: number): number {
    this.t += ms;
    const due = this.timers.filter((x) => x.at <= this.t).sort((a, b) => a.at - b.at);
    this.timers = this.timers.filter((x) => x.at > this.t);
    for (const x of due) x.fn();
    return due.length;
  }
}

describe('demo chains on a demo clock and on disk', () => {
  it('fails loudly when a mined block does not hold the transfers sent, and stays stopped', async () => {
    const [c] = (await start({ seed: 4, origin: ORIGIN, chains: ['bsc'] })) as [DemoChain];
    // A stranger's transaction in the pool: block 1 holds one more than the history planned.
    const stranger = '0xa0ee7a142d267c1f36714e4a8f75612f20a79720';
    await new RpcClient(c.node.url).call('eth_sendTransaction', [
      { from: stranger, to: stranger, value: '0x1' },
    ]);
    await expect(c.buildTo(at(3))).rejects.toThrow(
      /^demo chain bsc: block 1 is \d+ transactions at \d+, expected \d+/,
    );
    await expect(c.buildTo(at(5))).rejects.toThrow(/block 1 is/);
  });

  it('follow mines due blocks; when behind, one block at the clock time (stretched)', async () => {
    const [c] = (await start({ seed: 9, origin: ORIGIN, chains: ['base'] })) as [DemoChain];
    await c.buildTo(at(10));
    const clock = new ManualClock(at(10) + 1_000);
    const stop = c.follow(clock);
    clock.advance(11_000);
    await expect.poll(() => c.head().number, MINED).toBe(11);
    expect(c.head().timestampMs).toBe(at(11));
    clock.advance(60_000); // five blocks late: one block now, none of the missed ones
    await expect.poll(() => c.head().number, MINED).toBe(12);
    expect(c.head().timestampMs).toBe(at(16));
    expect(clock.now() - c.head().timestampMs).toBeLessThan(BLOCK_TIME_MS);
    clock.advance(12_000);
    await expect.poll(() => c.head().number, MINED).toBe(13);
    expect(c.head().timestampMs).toBe(at(17));
    stop();
    // Stopped: ten blocks' time passes and no timer of the follower is left to fire.
    expect(clock.advance(120_000)).toBe(0);
    expect(c.head().number).toBe(13);
    // buildTo goes on from the stretched head.
    await c.buildTo(at(19));
    expect(c.head()).toEqual({ number: 15, timestampMs: at(19) });
  });

  it('a follower whose step fails resynchronises from its node and mines on; one that keeps failing stops with one line', async () => {
    const [c] = (await start({ seed: 6, origin: ORIGIN, chains: ['ethereum'] })) as [DemoChain];
    await c.buildTo(at(5));
    const real = new RpcClient(c.node.url);
    let failing = 0;
    // A request lost before it reached the node (a reset socket): the node is unchanged.
    const lost = () => failing-- > 0;
    const flaky = Object.assign(Object.create(real) as RpcClient, {
      batch: (calls: Parameters<RpcClient['batch']>[0]) =>
        lost() ? Promise.reject(new Error('socket hang up')) : real.batch(calls),
      call: (method: string, params: readonly unknown[]) =>
        lost() ? Promise.reject(new Error('socket hang up')) : real.call(method, params),
    });
    const lines: string[] = [];
    const d = makeDemoChain({
      chain: 'ethereum',
      chainId: 1,
      seed: 6,
      origin: ORIGIN,
      node: c.node,
      rpc: flaky,
      head: c.head(),
      nonces: await readNonces(real),
      log: (level: LogLevel, msg: string) => lines.push(`${level} ${msg}`),
    });
    const clock = new ManualClock(at(5) + 1_000);
    const stop = d.follow(clock);
    failing = 1;
    clock.advance(11_000);
    await expect
      .poll(() => lines, MINED)
      .toEqual(['warn demo chain mining failed; resynchronising from its node']);
    // One block time later it resynchronises, then mines the block that is due, at the clock's time.
    expect(clock.advance(12_000)).toBe(1);
    await expect.poll(() => clock.advance(0), MINED).toBe(1);
    await expect.poll(() => d.head().number, MINED).toBe(6);
    expect(d.head().timestampMs).toBe(at(7));
    // Every request failing: three resynchronisations a block time apart, then one error line.
    failing = Number.POSITIVE_INFINITY;
    clock.advance(12_000);
    for (let i = 0; i < 3; i++) {
      await expect.poll(() => lines.length, MINED).toBe(2 + i);
      expect(clock.advance(12_000)).toBe(1);
    }
    await expect.poll(() => lines.at(-1), MINED).toBe('error demo chain stopped mining');
    expect(lines.filter((l) => l.startsWith('warn'))).toHaveLength(4);
    expect(clock.advance(60_000)).toBe(0);
    expect(d.head().number).toBe(6);
    stop();
  });

  it('resumes from its state file; a corrupt or foreign one is rebuilt with the same hashes', async () => {
    const dir = tempDir();
    const lines: string[] = [];
    const log = (_l: LogLevel, msg: string, f?: Readonly<Record<string, unknown>>) =>
      lines.push(`${msg} ${JSON.stringify(f)}`);
    const run = async (origin: number, seed = 11) => {
      const [c] = (await start({ seed, origin, stateDir: dir, chains: ['base'], log })) as [DemoChain];
      return c;
    };
    let c = await run(ORIGIN);
    expect(lines.at(-1)).toMatch(/built from origin.*no state file/);
    await c.buildTo(at(30));
    const first = await hashes(c, 30);
    await c.stop();
    const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8'));
    expect(meta).toEqual({
      seed: 11,
      history: HISTORY_VERSION,
      origin: ORIGIN,
      chains: { base: { chainId: 8453, newest: 30 } },
    });

    // A later origin passed on restart: meta's origin wins, so the history stays the same.
    c = await run(ORIGIN + 3_600_000);
    expect(lines.at(-1)).toMatch(/resumed from state.*"block":30/);
    expect(c.origin).toBe(ORIGIN);
    expect(c.head()).toEqual({ number: 30, timestampMs: at(30) });
    expect((await hashes(c, 30))[10]).toBe(first[10]);
    await c.buildTo(at(40));
    const resumed = await hashes(c, 40);
    await c.stop();

    // Killed (-9): the watchdog's SIGTERM dumped the state, but meta.json records no head. The
    // state's newest block is checked against the plan instead: resumed, not rebuilt.
    const unrecorded = () => {
      const m = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8'));
      writeFileSync(join(dir, 'meta.json'), JSON.stringify({ ...m, chains: {} }));
    };
    unrecorded();
    c = await run(ORIGIN);
    expect(lines.at(-1)).toMatch(/resumed from state.*"block":40/);
    // A loaded state's genesis hash is anvil's own; the history's blocks are the same.
    expect((await hashes(c, 40)).slice(1)).toEqual(resumed.slice(1));
    await c.stop();

    // Another chain's state under base's name: its newest block is not base's planned block 40.
    const other = tempDir();
    const [bsc] = (await start({ seed: 11, origin: ORIGIN, stateDir: other, chains: ['bsc'], log })) as [
      DemoChain,
    ];
    await bsc.buildTo(at(40));
    await bsc.stop();
    writeFileSync(join(dir, 'base.json'), readFileSync(join(other, 'bsc.json')));
    unrecorded();
    c = await run(ORIGIN);
    expect(lines.at(-1)).toMatch(/built from origin.*block 40 (is|has|transaction)/);
    expect(c.head().number).toBe(0);
    await c.buildTo(at(40));
    expect(await hashes(c, 40)).toEqual(resumed);
    await c.stop();

    writeFileSync(join(dir, 'base.json'), '{"block":');
    c = await run(ORIGIN + 3_600_000);
    expect(lines.at(-1)).toMatch(/built from origin.*exited with code 2/);
    expect(c.head().number).toBe(0);
    await c.buildTo(at(40));
    expect(await hashes(c, 40)).toEqual(resumed);
    expect(resumed.slice(0, 31)).toEqual(first);
    await c.stop();

    // A state built by older code (its meta.json has no history version) holds another history.
    const { history: _, ...unversioned } = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8'));
    writeFileSync(join(dir, 'meta.json'), JSON.stringify(unversioned));
    c = await run(ORIGIN);
    expect(lines.at(-1)).toMatch(/built from origin.*history 0 in meta.json, 2 built/);
    expect(c.head().number).toBe(0);
    await c.stop();

    c = await run(ORIGIN, 12);
    expect(lines.at(-1)).toMatch(/built from origin.*seed 11 in meta.json, 12 asked/);
    expect(c.head().number).toBe(0);
    await c.stop();
  });
});
