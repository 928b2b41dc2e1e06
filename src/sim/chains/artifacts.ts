import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Hex, keccak256 } from 'viem';

/**
 * Bytecode of the Uniswap V2 packages (GPL-3.0-or-later). It only runs inside the separate anvil
 * process: Citebench reads it as data from node_modules and never links or copies the source.
 */

export type Artifact =
  | '@uniswap/v2-core/build/ERC20.json'
  | '@uniswap/v2-core/build/UniswapV2Factory.json'
  | '@uniswap/v2-core/build/UniswapV2Pair.json'
  | '@uniswap/v2-periphery/build/WETH9.json'
  | '@uniswap/v2-periphery/build/UniswapV2Router02.json';

interface Build {
  readonly creation: Hex;
  readonly runtime: Hex;
}

const cache = new Map<Artifact, Build>();

function prefixed(path: string, what: string, object: string | undefined): Hex {
  if (!object) throw new Error(`${path} has no evm.${what}.object`);
  return (object.startsWith('0x') ? object : `0x${object}`) as Hex;
}

function load(name: Artifact): Build {
  const hit = cache.get(name);
  if (hit) return hit;
  const path = createRequire(import.meta.url).resolve(name);
  const json = JSON.parse(readFileSync(path, 'utf8')) as {
    evm?: { bytecode?: { object?: string }; deployedBytecode?: { object?: string } };
  };
  const build = {
    creation: prefixed(path, 'bytecode', json.evm?.bytecode?.object),
    runtime: prefixed(path, 'deployedBytecode', json.evm?.deployedBytecode?.object),
  };
  cache.set(name, build);
  return build;
}

/** Init code (constructor included): what a deployment transaction carries as data. */
export function creationCode(name: Artifact): Hex {
  return load(name).creation;
}

/** Code as it sits at an address: what anvil_setCode places. */
export function runtimeCode(name: Artifact): Hex {
  return load(name).runtime;
}

/** keccak256 of the pair's init code: the factory's CREATE2 salt-independent half of every pair address. */
export function pairInitCodeHash(): Hex {
  return keccak256(creationCode('@uniswap/v2-core/build/UniswapV2Pair.json'));
}
