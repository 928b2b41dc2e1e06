import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type HarnessLog, silentLog } from '../../harness/types.ts';
import { type AnvilNode, startAnvil } from './anvil.ts';
import {
  checkPlannedHead,
  type DemoChain,
  impersonateSenders,
  installTokens,
  makeDemoChain,
  readHead,
  readNonces,
} from './demo-chain.ts';
import { BLOCK_TIME_MS, HISTORY_VERSION } from './history.ts';
import { type ChainsMeta, MetaWriter, readMeta } from './meta.ts';
import { RpcClient } from './rpc.ts';
import { SENDERS } from './txs.ts';

/** The demo's EVM chains: the EVM chains of REFERENCE_TOKENS (src/harness/tokens.ts). */
export const DEMO_CHAINS: readonly { readonly chain: string; readonly chainId: number }[] = [
  { chain: 'ethereum', chainId: 1 },
  { chain: 'bsc', chainId: 56 },
  { chain: 'base', chainId: 8453 },
];

export interface StartDemoChainsOptions {
  readonly seed: number;
  /** Where the history starts (ms, floored to a whole second); used when no valid state exists. */
  readonly origin: number;
  /** DATA_DIR/chains: state files + meta.json. Omit: in-memory only. */
  readonly stateDir?: string;
  /** Default: every DEMO_CHAINS entry. */
  readonly chains?: readonly string[];
  readonly log?: HarnessLog;
}

interface Opened {
  readonly node: AnvilNode;
  readonly rpc: RpcClient;
  readonly head: { readonly number: number; readonly timestampMs: number };
}

/**
 * Starts anvil on a state file of this seed and history; a reason (node stopped) when its head is
 * not the plan's block at that height. The newest block meta.json records is written on a clean
 * stop only: after a kill -9 the watchdog's SIGTERM still dumps the state, so its head is checked
 * against the plan like a resynchronising follower's, not against meta.json.
 */
async function resume(
  plan: { readonly seed: number; readonly chain: string; readonly chainId: number },
  stateFile: string,
): Promise<Opened | string> {
  let node: AnvilNode;
  try {
    node = await startAnvil({ chainId: plan.chainId, stateFile });
  } catch (e) {
    return (e as Error).message;
  }
  const rpc = new RpcClient(node.url);
  try {
    const head = await readHead(rpc);
    if (head.number === 0) {
      await node.stop();
      return 'state holds no block';
    }
    await checkPlannedHead(rpc, plan, head);
    // A loaded state leaves anvil's clock at the wall time, which refuses evm_mine at the
    // history's (past) timestamps: set it back to the head's.
    await rpc.call('evm_setTime', [head.timestampMs / 1000]);
    await impersonateSenders(rpc);
    return { node, rpc, head };
  } catch (e) {
    await node.stop();
    return (e as Error).message;
  }
}

/** A fresh node whose genesis is one block before the origin, tokens installed, nothing mined. */
async function fresh(chain: string, chainId: number, origin: number, stateFile?: string): Promise<Opened> {
  const genesisMs = origin - BLOCK_TIME_MS;
  const node = await startAnvil({
    chainId,
    genesisTimestampSec: genesisMs / 1000,
    ...(stateFile !== undefined ? { stateFile } : {}),
  });
  const rpc = new RpcClient(node.url);
  try {
    await installTokens(rpc, chain);
    await impersonateSenders(rpc);
  } catch (e) {
    await node.stop();
    throw e;
  }
  return { node, rpc, head: { number: 0, timestampMs: genesisMs } };
}

/** Starts and prepares one chain per DEMO_CHAINS entry (in parallel); resumes from valid state, else rebuilds. */
export async function startDemoChains(opts: StartDemoChainsOptions): Promise<DemoChain[]> {
  const log = opts.log ?? silentLog;
  const wanted = opts.chains ?? DEMO_CHAINS.map((c) => c.chain);
  const chains = wanted.map((name) => {
    const c = DEMO_CHAINS.find((d) => d.chain === name);
    if (!c) throw new Error(`unknown demo chain: ${name}`);
    return c;
  });
  const dir = opts.stateDir;
  if (dir !== undefined) mkdirSync(dir, { recursive: true });
  const prior = dir !== undefined ? readMeta(dir) : null;
  const same = prior?.seed === opts.seed && prior.history === HISTORY_VERSION ? prior : null;
  // Block timestamps are whole seconds: a whole-second origin keeps block n at origin + (n-1)·12 s.
  const origin = same?.origin ?? Math.floor(opts.origin / 1000) * 1000;
  const meta: ChainsMeta = same ?? { seed: opts.seed, history: HISTORY_VERSION, origin, chains: {} };
  const writer = dir !== undefined ? new MetaWriter(dir, meta) : null;

  const open = async ({ chain, chainId }: { chain: string; chainId: number }): Promise<DemoChain> => {
    const stateFile = dir !== undefined ? join(dir, `${chain}.json`) : undefined;
    const entry = meta.chains[chain];
    let opened: Opened | null = null;
    let why = 'in memory';
    if (stateFile !== undefined) {
      if (prior !== null && prior.seed !== opts.seed)
        why = `seed ${prior.seed} in meta.json, ${opts.seed} asked`;
      else if (prior !== null && prior.history !== HISTORY_VERSION)
        why = `history ${prior.history} in meta.json, ${HISTORY_VERSION} built`;
      else if (!existsSync(stateFile)) why = 'no state file';
      else if (entry && entry.chainId !== chainId) why = `chain id ${entry.chainId} in meta.json`;
      else {
        const r = await resume({ seed: opts.seed, chain, chainId }, stateFile);
        if (typeof r === 'string') why = r;
        else opened = r;
      }
    }
    if (opened) {
      log('info', 'demo chain resumed from state', { chain, block: opened.head.number });
    } else {
      if (stateFile !== undefined) {
        rmSync(stateFile, { force: true });
        await writer?.set(chain, null);
      }
      opened = await fresh(chain, chainId, origin, stateFile);
      log('info', 'demo chain built from origin', {
        chain,
        origin: new Date(origin).toISOString(),
        reason: why,
      });
    }
    const nonces =
      opened.head.number === 0 ? new Map(SENDERS.map((h) => [h, 0])) : await readNonces(opened.rpc);
    return makeDemoChain({
      chain,
      chainId,
      seed: opts.seed,
      origin,
      node: opened.node,
      rpc: opened.rpc,
      head: opened.head,
      nonces,
      log,
      ...(writer ? { onStopped: (h) => writer.set(chain, { chainId, newest: h.number }) } : {}),
    });
  };

  // A new seed (or no meta) starts a new meta.json before any node dumps a state next to it.
  if (writer && !same) await writer.save();
  const settled = await Promise.allSettled(chains.map(open));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  const started = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  if (failed) {
    // No node outlives a failed start.
    await Promise.allSettled(started.map((c) => c.node.stop()));
    throw failed.reason;
  }
  return started;
}
