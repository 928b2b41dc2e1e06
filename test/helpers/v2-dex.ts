import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Abi, encodeDeployData, encodeFunctionData, getContractAddress, type Hex } from 'viem';
import { anvilBinary } from '../../src/sim/chains/anvil.ts';
import { RpcClient } from '../../src/sim/chains/rpc.ts';

/**
 * A minimal Uniswap V2 on a real anvil for the truth reader's tests: factory, WETH9, Router02 from
 * the @uniswap/v2-core / v2-periphery artifacts (the bytecode runs inside anvil only), two ERC20s
 * (TKN, the token under test, and QUOTE) and three pools: TKN/WETH, TKN/QUOTE and QUOTE/WETH (a
 * pool without TKN, whose swaps never count). Automine is off: each block's transactions go as one
 * batch with explicit nonces, then `evm_mine(timestamp)` seals them at the chosen time.
 */

const req = createRequire(import.meta.url);

interface Artifact {
  readonly abi: Abi;
  readonly bytecode: Hex;
}

function artifact(path: string): Artifact {
  const j = JSON.parse(readFileSync(req.resolve(path), 'utf8')) as { abi: Abi; bytecode: string };
  return { abi: j.abi, bytecode: (j.bytecode.startsWith('0x') ? j.bytecode : `0x${j.bytecode}`) as Hex };
}

const FACTORY = artifact('@uniswap/v2-core/build/UniswapV2Factory.json');
const ERC20 = artifact('@uniswap/v2-core/build/ERC20.json');
const WETH = artifact('@uniswap/v2-periphery/build/WETH9.json');
const ROUTER = artifact('@uniswap/v2-periphery/build/UniswapV2Router02.json');

export interface TestAnvil {
  readonly url: string;
  readonly rpc: RpcClient;
  readonly pid: number;
  stop(): Promise<void>;
}

/** A bare anvil with the flags a test needs (automine off, optional --transaction-block-keeper). */
export async function startTestAnvil(opts: { genesisSec: number; keeper?: number }): Promise<TestAnvil> {
  const args = ['--host', '127.0.0.1', '--port', '0', '--no-mining', '--timestamp', String(opts.genesisSec)];
  args.push('--gas-limit', '1000000000', '--prune-history', '24');
  if (opts.keeper !== undefined) args.push('--transaction-block-keeper', String(opts.keeper));
  const child: ChildProcess = spawn(anvilBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const kill = (): void => void child.kill('SIGKILL');
  process.once('exit', kill);
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    // Quiet, anvil listens within ~0.3 s; the bound is against a hang only.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('anvil did not start within 30 s'));
    }, 30_000);
    child.stdout?.on('data', (b: Buffer) => {
      out = (out + b.toString()).slice(-4096);
      const m = /Listening on 127\.0\.0\.1:(\d+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`anvil exited with ${code}: ${out}`));
    });
  });
  child.stderr?.resume();
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    rpc: new RpcClient(url, 60_000),
    pid: child.pid ?? 0,
    stop: async () => {
      process.removeListener('exit', kill);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGKILL');
      await gone;
    },
  };
}

/** A transaction of a test block: swaps along a path, a swap that reverts, or a plain TKN transfer. */
export type TxSpec =
  | { readonly kind: 'swap'; readonly path: readonly Hex[] }
  | { readonly kind: 'revert'; readonly path: readonly Hex[] }
  | { readonly kind: 'transfer' };

export interface MinedBlock {
  readonly number: number;
  readonly timestampSec: number;
  /** Hashes in the order of the specs. */
  readonly hashes: readonly Hex[];
}

export interface V2Dex {
  readonly node: TestAnvil;
  readonly factory: Hex;
  readonly factoryBlock: number;
  readonly router: Hex;
  readonly weth: Hex;
  readonly tkn: Hex;
  readonly quote: Hex;
  /** Pair addresses: TKN/WETH, TKN/QUOTE, QUOTE/WETH. */
  readonly pairs: { readonly tknWeth: Hex; readonly tknQuote: Hex; readonly quoteWeth: Hex };
  /** The last mined block's timestamp (s); `mine` and `block` must go later. */
  readonly clockSec: number;
  /** Seals the given transactions in one new block at `timestampSec` (default: 12 s after the last). */
  block(specs: readonly TxSpec[], timestampSec?: number): Promise<MinedBlock>;
  /** Mines `n` empty blocks, `stepSec` apart. */
  mineEmpty(n: number, stepSec?: number): Promise<void>;
}

const MAX = 2n ** 255n;
const E18 = 10n ** 18n;

export async function deployV2Dex(node: TestAnvil): Promise<V2Dex> {
  const rpc = node.rpc;
  const [from] = (await rpc.call<Hex[]>('eth_accounts')) as [Hex];
  let nonce = Number.parseInt(await rpc.call<string>('eth_getTransactionCount', [from, 'pending']), 16);
  const genesis = await rpc.call<{ timestamp: string }>('eth_getBlockByNumber', ['latest', false]);
  let clockSec = Number.parseInt(genesis.timestamp, 16);

  const send = async (
    txs: readonly { to?: Hex; data: Hex; value?: bigint; gas: number }[],
  ): Promise<Hex[]> => {
    const calls = txs.map((t) => ({
      method: 'eth_sendTransaction',
      params: [
        {
          from,
          ...(t.to ? { to: t.to } : {}),
          data: t.data,
          gas: `0x${t.gas.toString(16)}`,
          nonce: `0x${(nonce++).toString(16)}`,
          ...(t.value ? { value: `0x${t.value.toString(16)}` } : {}),
        },
      ],
    }));
    return (await rpc.batch(calls)) as Hex[];
  };
  const mine = async (ts: number): Promise<number> => {
    await rpc.call('evm_mine', [ts]);
    clockSec = ts;
    return Number.parseInt(await rpc.call<string>('eth_blockNumber'), 16);
  };
  const addr = (n: number): Hex => getContractAddress({ from, nonce: BigInt(n) });

  const factory = addr(nonce);
  const weth = addr(nonce + 1);
  const router = addr(nonce + 2);
  const tkn = addr(nonce + 3);
  const quote = addr(nonce + 4);
  await send([
    {
      data: encodeDeployData({ abi: FACTORY.abi, bytecode: FACTORY.bytecode, args: [from] }),
      gas: 6_000_000,
    },
    { data: WETH.bytecode, gas: 3_000_000 },
    {
      data: encodeDeployData({ abi: ROUTER.abi, bytecode: ROUTER.bytecode, args: [factory, weth] }),
      gas: 8_000_000,
    },
    {
      data: encodeDeployData({ abi: ERC20.abi, bytecode: ERC20.bytecode, args: [10n ** 30n] }),
      gas: 3_000_000,
    },
    {
      data: encodeDeployData({ abi: ERC20.abi, bytecode: ERC20.bytecode, args: [10n ** 30n] }),
      gas: 3_000_000,
    },
  ]);
  const factoryBlock = await mine(clockSec + 12);

  const call = (to: Hex, abi: Abi, functionName: string, args: readonly unknown[], gas = 300_000) => ({
    to,
    data: encodeFunctionData({ abi, functionName, args }),
    gas,
  });
  const liquidity = (a: Hex, b: Hex, amountA: bigint, amountB: bigint) =>
    call(router, ROUTER.abi, 'addLiquidity', [a, b, amountA, amountB, 0n, 0n, from, 2n ** 40n], 5_000_000);
  await send([
    {
      to: weth,
      data: encodeFunctionData({ abi: WETH.abi, functionName: 'deposit' }),
      value: 5_000n * E18,
      gas: 100_000,
    },
    call(weth, WETH.abi, 'approve', [router, MAX]),
    call(tkn, ERC20.abi, 'approve', [router, MAX]),
    call(quote, ERC20.abi, 'approve', [router, MAX]),
    liquidity(tkn, weth, 10n ** 27n / 10n, 1_000n * E18),
    liquidity(tkn, quote, 10n ** 27n / 10n, 10n ** 27n / 10n),
    liquidity(quote, weth, 10n ** 27n / 10n, 1_000n * E18),
  ]);
  await mine(clockSec + 12);
  const pair = async (a: Hex, b: Hex): Promise<Hex> => {
    const data = encodeFunctionData({ abi: FACTORY.abi, functionName: 'getPair', args: [a, b] });
    const out = await rpc.call<Hex>('eth_call', [{ to: factory, data }, 'latest']);
    return `0x${out.slice(26)}` as Hex;
  };
  const pairs = {
    tknWeth: await pair(tkn, weth),
    tknQuote: await pair(tkn, quote),
    quoteWeth: await pair(quote, weth),
  };

  const txOf = (s: TxSpec) => {
    if (s.kind === 'transfer') return call(tkn, ERC20.abi, 'transfer', [addr(1000), E18], 100_000);
    const amountIn = s.path[0] === weth ? 10n ** 15n : E18;
    // An impossible minimum output makes the router revert (INSUFFICIENT_OUTPUT_AMOUNT) after gas is spent.
    const minOut = s.kind === 'revert' ? MAX : 0n;
    const gas = 120_000 + 70_000 * s.path.length;
    return call(
      router,
      ROUTER.abi,
      'swapExactTokensForTokens',
      [amountIn, minOut, s.path, from, 2n ** 40n],
      gas,
    );
  };

  const dex: V2Dex = {
    node,
    factory,
    factoryBlock,
    router,
    weth,
    tkn,
    quote,
    pairs,
    get clockSec() {
      return clockSec;
    },
    async block(specs, timestampSec) {
      const hashes = await send(specs.map(txOf));
      const ts = timestampSec ?? clockSec + 12;
      const number = await mine(ts);
      const b = await rpc.call<{ transactions: string[] }>('eth_getBlockByNumber', [
        `0x${number.toString(16)}`,
        false,
      ]);
      if (b.transactions.length !== specs.length)
        throw new Error(`block ${number}: ${b.transactions.length} of ${specs.length} transactions mined`);
      return { number, timestampSec: ts, hashes };
    },
    async mineEmpty(n, stepSec = 12) {
      for (let i = 0; i < n; i++) await rpc.call('evm_mine', [clockSec + stepSec * (i + 1)]);
      clockSec += stepSec * n;
    },
  };
  return dex;
}
