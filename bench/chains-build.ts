/**
 * Builds the demo chains from scratch as the demo does on an empty DATA_DIR: three 7 h histories
 * (3 × 2,100 blocks of 12 s, transfers and Uniswap V2 swaps) in parallel (issue 23 target: ≤ 30 s
 * on the 2-core machine). Prints blocks, swap transactions and Swap logs (read back with
 * eth_getLogs), seconds and blocks/s per chain and each anvil's RSS; then stops them (state
 * dumped), restarts from the state files and prints the resume time and file sizes.
 *   npx tsx bench/chains-build.ts [hours]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BLOCK_TIME_MS, type DemoChain, startDemoChains, V2_SWAP_TOPIC } from '../src/sim/chains/index.ts';
import { RpcClient } from '../src/sim/chains/rpc.ts';
import { rssMb } from './lib.ts';

const secs = (from: number): string => ((performance.now() - from) / 1000).toFixed(1);

/** Swap logs and their distinct transactions, 500 blocks a request. */
async function swapCounts(c: DemoChain): Promise<{ txs: number; logs: number }> {
  const rpc = new RpcClient(c.node.url, 60_000);
  const txs = new Set<string>();
  let logs = 0;
  for (let from = 1; from <= c.head().number; from += 500) {
    const to = Math.min(from + 499, c.head().number);
    const got = await rpc.call<Array<{ transactionHash: string }>>('eth_getLogs', [
      { fromBlock: `0x${from.toString(16)}`, toBlock: `0x${to.toString(16)}`, topics: [V2_SWAP_TOPIC] },
    ]);
    logs += got.length;
    for (const l of got) txs.add(l.transactionHash);
  }
  return { txs: txs.size, logs };
}

async function main(): Promise<void> {
  const hours = Number(process.argv[2] ?? 7);
  const now = Math.floor(Date.now() / 1000) * 1000;
  const origin = now - hours * 3_600_000;
  const stateDir = mkdtempSync(join(tmpdir(), 'chains-build-'));
  try {
    const t0 = performance.now();
    let chains = await startDemoChains({ seed: 1, origin, stateDir });
    const started = performance.now() - t0;
    const rows = await Promise.all(
      chains.map(async (c) => {
        const from = performance.now();
        try {
          await c.buildTo(now);
        } catch (e) {
          await Promise.allSettled(chains.map((x) => x.stop()));
          throw e;
        }
        return { c, seconds: (performance.now() - from) / 1000 };
      }),
    );
    console.log(
      `${cpus().length} cores, ${hours} h of ${BLOCK_TIME_MS / 1000} s blocks; nodes up in ${started.toFixed(0)} ms`,
    );
    const built = secs(t0);
    const totals = { blocks: 0, txs: 0, logs: 0 };
    for (const { c, seconds } of rows) {
      const blocks = c.head().number;
      const rate = (blocks / seconds).toFixed(0);
      const rss = rssMb(c.node.pid).toFixed(0);
      const swaps = await swapCounts(c);
      totals.blocks += blocks;
      totals.txs += swaps.txs;
      totals.logs += swaps.logs;
      console.log(
        `${c.chain.padEnd(9)} ${blocks} blocks  ${swaps.txs} swap txs (${swaps.logs} Swap logs)  ${seconds.toFixed(1)} s  ${rate} blocks/s  anvil RSS ${rss} MB`,
      );
    }
    console.log(
      `empty → built: ${built} s (start + build, chains in parallel); ${totals.blocks} blocks, ${totals.txs} swap txs, ${totals.logs} Swap logs`,
    );

    const t1 = performance.now();
    await Promise.all(chains.map((c) => c.stop()));
    const sizes = chains.map(
      (c) => `${c.chain} ${(statSync(join(stateDir, `${c.chain}.json`)).size / 1e6).toFixed(1)} MB`,
    );
    console.log(`stop + state dump: ${secs(t1)} s; state files: ${sizes.join(', ')}`);

    const t2 = performance.now();
    const lines: string[] = [];
    chains = await startDemoChains({ seed: 1, origin, stateDir, log: (_l, msg) => lines.push(msg) });
    const resumed = lines.filter((l) => l.includes('resumed')).length;
    console.log(`filled → ready: ${secs(t2)} s (${resumed}/${chains.length} resumed)`);
    for (const c of chains)
      console.log(`${c.chain.padEnd(9)} resumed anvil RSS ${rssMb(c.node.pid).toFixed(0)} MB`);
    await Promise.all(chains.map((c) => c.stop()));
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}

await main();
