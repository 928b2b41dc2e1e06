import type { Hex } from 'viem';
import type { Clock, HarnessLog } from '../../harness/types.ts';
import type { AnvilNode } from './anvil.ts';
import { BLOCK_TIME_MS, type PlannedBlock, plannedBlock, tokenSetupCalls } from './history.ts';
import { hexToNumber, type RpcCall, type RpcClient, toQuantity } from './rpc.ts';
import { type PlannedTx, SENDERS, sendCalls } from './txs.ts';

export interface ChainHead {
  readonly number: number;
  readonly timestampMs: number;
}

export interface DemoChain {
  readonly chain: string;
  readonly chainId: number;
  readonly node: AnvilNode;
  /** Ms epoch of block 1 (the history's origin); block n has timestamp origin + (n-1)·12 s. */
  readonly origin: number;
  /** Mines, in order, every block of the history with timestamp ≤ t (ms) not mined yet. Idempotent, monotonic. */
  buildTo(t: number): Promise<void>;
  /** Newest mined block. */
  head(): ChainHead;
  /**
   * Calls `fn` with the head now and after every block mined, until the returned function is
   * called: a simulator on another thread keeps its copy of the head current this way.
   */
  watchHead(fn: (head: ChainHead) => void): () => void;
  /**
   * Mines the blocks whose time has come as `clock` advances; when it falls behind by more than a
   * block it mines one block at the clock's time instead of every missed one, so block times
   * stretch and the head stays within one block of the clock. Returns a stop function.
   */
  follow(clock: Clock): () => void;
  /** Stops anvil (it dumps its state when it has a state file). */
  stop(): Promise<void>;
}

export interface DemoChainParts {
  readonly chain: string;
  readonly chainId: number;
  readonly seed: number;
  readonly origin: number;
  readonly node: AnvilNode;
  readonly rpc: RpcClient;
  readonly head: ChainHead;
  readonly nonces: Map<Hex, number>;
  readonly log: HarnessLog;
  /** Called once anvil has exited, with the head its dumped state holds. */
  readonly onStopped?: (head: ChainHead) => Promise<void>;
}

interface RpcBlock {
  readonly number: string;
  readonly timestamp: string;
  readonly transactions: readonly unknown[];
}

interface RpcReceipt {
  readonly status: string;
}

interface Want {
  readonly n: number;
  /** One character a transaction, in block order: '1' success, '0' reverted. */
  readonly statuses: string;
  readonly timestampMs: number;
}

/** Every transaction succeeds but the swaps planned to revert. */
function expectedStatuses(b: PlannedBlock): string {
  const reverted = new Set<PlannedTx>(b.swaps.filter((s) => s.kind === 'reverted'));
  return b.txs.map((t) => (reverted.has(t) ? '0' : '1')).join('');
}

/**
 * A block must hold exactly the planned transactions at its timestamp, each with the planned
 * outcome: an unexpected revert (a drained pool, a setup step out of gas) stops the build loudly
 * instead of leaving a history without the trades the model promised.
 */
/** The newest block's contents and receipts, in one batch. */
function checkCalls(n: number): RpcCall[] {
  return [
    { method: 'eth_getBlockByNumber', params: [toQuantity(n), false] },
    { method: 'eth_getBlockReceipts', params: [toQuantity(n)] },
  ];
}

function checkBlock(block: RpcBlock | null, receipts: readonly RpcReceipt[] | null, want: Want): void {
  const txs = want.statuses.length;
  const got = block
    ? `${block.transactions.length} transactions at ${hexToNumber(block.timestamp)}`
    : 'missing';
  if (!block || block.transactions.length !== txs || hexToNumber(block.timestamp) * 1000 !== want.timestampMs)
    throw new Error(`block ${want.n} is ${got}, expected ${txs} at ${want.timestampMs / 1000}`);
  const statuses = (receipts ?? []).map((r) => String(hexToNumber(r.status))).join('');
  if (statuses !== want.statuses)
    throw new Error(`block ${want.n} has statuses ${statuses || 'none'}, expected ${want.statuses}`);
}

/**
 * The node's newest block holds the plan's transactions for that height (sender, recipient and
 * calldata, in order), each with its planned outcome. Its timestamp is the node's own: a follower
 * behind the clock mines at the clock's time. Throws otherwise.
 */
export async function checkPlannedHead(
  rpc: RpcClient,
  plan: { readonly seed: number; readonly chain: string; readonly chainId: number },
  head: ChainHead,
): Promise<void> {
  if (head.number === 0) return;
  const planned = plannedBlock(plan.seed, plan.chain, plan.chainId, head.number);
  const [block, receipts] = await rpc.batch([
    { method: 'eth_getBlockByNumber', params: [toQuantity(head.number), true] },
    { method: 'eth_getBlockReceipts', params: [toQuantity(head.number)] },
  ]);
  const b = block as RpcBlock | null;
  checkBlock(b, receipts as RpcReceipt[] | null, {
    n: head.number,
    statuses: expectedStatuses(planned),
    timestampMs: head.timestampMs,
  });
  const sent = (b?.transactions ?? []) as ReadonlyArray<{
    from?: string;
    to?: string | null;
    input?: string;
  }>;
  const same = (a: string | null | undefined, want: string | undefined) =>
    (a ?? undefined)?.toLowerCase() === want?.toLowerCase();
  const at = planned.txs.findIndex(
    (t, i) => !same(sent[i]?.from, t.from) || !same(sent[i]?.to, t.to) || !same(sent[i]?.input, t.data),
  );
  if (at >= 0) throw new Error(`block ${head.number} transaction ${at} is not the planned one`);
}

export async function readHead(rpc: RpcClient): Promise<ChainHead> {
  const b = await rpc.call<RpcBlock>('eth_getBlockByNumber', ['latest', false]);
  return { number: hexToNumber(b.number), timestampMs: hexToNumber(b.timestamp) * 1000 };
}

export async function readNonces(rpc: RpcClient): Promise<Map<Hex, number>> {
  const counts = await rpc.batch(
    SENDERS.map((h) => ({ method: 'eth_getTransactionCount', params: [h, 'latest'] })),
  );
  return new Map(SENDERS.map((h, i) => [h, hexToNumber(counts[i])]));
}

/**
 * Lets the history's senders send unsigned: anvil then neither signs nor recovers a sender, which
 * halves its CPU on a swap-heavy build (3 × 7 h: anvil 21 → 13 CPU s, 26 → 15 s wall). The price:
 * these transactions carry r = s = 0 and anvil's impersonation hash (keccak of the encoded
 * transaction and the sender), still one hash per transaction and the same on every build.
 * Runtime only (not in the state file): set on every start, fresh or resumed.
 */
export async function impersonateSenders(rpc: RpcClient): Promise<void> {
  await rpc.batch(SENDERS.map((s) => ({ method: 'anvil_impersonateAccount', params: [s] })));
}

/** Puts the chain's reference and quote tokens in place on a fresh node: must run before block 1. */
export async function installTokens(rpc: RpcClient, chain: string): Promise<void> {
  await rpc.batch(tokenSetupCalls(chain));
}

/** Consecutive failed steps a follower resynchronises after before it stops mining. */
const MAX_FOLLOW_FAILURES = 3;

export function makeDemoChain(p: DemoChainParts): DemoChain {
  let head = p.head;
  // One mining step at a time: buildTo, follow and stop share this chain of promises.
  let queue: Promise<void> = Promise.resolve();
  let broken: Error | null = null;
  let stopped: Promise<void> | null = null;
  const followers = new Set<() => void>();
  const headWatchers = new Set<(h: ChainHead) => void>();

  const enqueue = (step: () => Promise<void>): Promise<void> => {
    const run = queue.then(() => {
      if (broken) throw broken;
      return step();
    });
    queue = run.catch(() => {});
    return run;
  };

  /** The newest block, mined but not yet checked: its check rides in the next block's batch. */
  let unchecked: Want | null = null;
  /** Any failure leaves nonces and head out of step with the node: stop rather than build another history. */
  const guarded = async (fn: () => Promise<void>): Promise<void> => {
    try {
      await fn();
    } catch (e) {
      broken = new Error(`demo chain ${p.chain}: ${(e as Error).message}`);
      throw broken;
    }
  };

  const mine = (timestampMs: number): Promise<void> =>
    guarded(async () => {
      const n = head.number + 1;
      const planned = plannedBlock(p.seed, p.chain, p.chainId, n);
      const calls = sendCalls(planned.txs, p.nonces);
      const prior = unchecked;
      // Two requests a block, not three: 3 × 7 h build in 14 s, not 20 (bench/chains-build.ts).
      if (prior) calls.push(...checkCalls(prior.n));
      const results = await p.rpc.batch(calls);
      if (prior) checkBlock(results.at(-2) as RpcBlock | null, results.at(-1) as RpcReceipt[] | null, prior);
      unchecked = null;
      await p.rpc.call('evm_mine', [timestampMs / 1000]);
      unchecked = { n, statuses: expectedStatuses(planned), timestampMs };
      head = { number: n, timestampMs };
      for (const w of headWatchers) w(head);
    });

  /** Checks the newest block before a step returns, so callers never see an unchecked head. */
  const settle = (): Promise<void> =>
    guarded(async () => {
      const prior = unchecked;
      if (!prior) return;
      const [block, receipts] = await p.rpc.batch(checkCalls(prior.n));
      checkBlock(block as RpcBlock | null, receipts as RpcReceipt[] | null, prior);
      unchecked = null;
    });

  const buildTo = (t: number): Promise<void> =>
    enqueue(async () => {
      while (head.timestampMs + BLOCK_TIME_MS <= t) await mine(head.timestampMs + BLOCK_TIME_MS);
      await settle();
    });

  /**
   * After a failed step: the node's own head, nonces and newest block, checked against the plan
   * like any block, become ours again. A node that disagrees with the plan stays broken.
   */
  const resync = (): Promise<void> => {
    const run = queue.then(async () => {
      const nodeHead = await readHead(p.rpc);
      const nonces = await readNonces(p.rpc);
      await checkPlannedHead(p.rpc, p, nodeHead);
      for (const [sender, n] of nonces) p.nonces.set(sender, n);
      head = nodeHead;
      unchecked = null;
      broken = null;
      for (const w of headWatchers) w(head);
    });
    queue = run.catch(() => {});
    return run;
  };

  const follow = (clock: Clock): (() => void) => {
    let handle: unknown = null;
    let active = true;
    const step = async (): Promise<void> => {
      const now = clock.now();
      const due = head.timestampMs + BLOCK_TIME_MS;
      if (now < due) return;
      // Behind by a whole block or more (a fast DEMO_SPEED): one block now, not a burst of missed ones.
      await mine(now - due >= BLOCK_TIME_MS ? Math.floor(now / 1000) * 1000 : due);
      await settle();
    };
    const schedule = (): void => {
      if (!active) return;
      const wait = Math.max(0, head.timestampMs + BLOCK_TIME_MS - clock.now());
      handle = clock.setTimeout(tick, wait);
    };
    let failures = 0;
    /**
     * A stalled chain would read as a fresh head to every provider: after a failed step the
     * follower resynchronises from the node one block time later, and gives up loudly, with one
     * line, only when that keeps failing.
     */
    const retry = (e: Error): void => {
      if (!active) return;
      if (++failures > MAX_FOLLOW_FAILURES) {
        p.log('error', 'demo chain stopped mining', { chain: p.chain, error: e.message });
        return;
      }
      p.log('warn', 'demo chain mining failed; resynchronising from its node', {
        chain: p.chain,
        error: e.message,
      });
      handle = clock.setTimeout(() => {
        handle = null;
        if (active) resync().then(schedule, retry);
      }, BLOCK_TIME_MS);
    };
    const tick = (): void => {
      handle = null;
      if (!active) return;
      enqueue(step).then(() => {
        failures = 0;
        schedule();
      }, retry);
    };
    const stop = (): void => {
      active = false;
      if (handle !== null) clock.clearTimeout(handle);
      handle = null;
      followers.delete(stop);
    };
    followers.add(stop);
    schedule();
    return stop;
  };

  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      for (const f of [...followers]) f();
      await queue;
      await p.node.stop();
      if (!broken) await p.onStopped?.(head);
    })();
    return stopped;
  };

  return {
    chain: p.chain,
    chainId: p.chainId,
    node: p.node,
    origin: p.origin,
    buildTo,
    head: () => head,
    watchHead(fn) {
      headWatchers.add(fn);
      fn(head);
      return () => headWatchers.delete(fn);
    },
    follow,
    stop,
  };
}
