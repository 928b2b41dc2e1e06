import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * DATA_DIR/chains/meta.json: what the state files beside it hold. A state file is only trusted
 * when this file names the same seed and history version, and the newest block anvil loads from it
 * is the plan's block at that height (src/sim/chains/demo-chains.ts); anything else is rebuilt.
 * `newest` records the head of a clean stop.
 */
export interface ChainsMeta {
  readonly seed: number;
  /** HISTORY_VERSION of the code that built the states (0: written before versions existed). */
  readonly history: number;
  /** Ms epoch of block 1: kept so a restart rebuilds the same history, whatever `origin` it is given. */
  readonly origin: number;
  readonly chains: Readonly<Record<string, { readonly chainId: number; readonly newest: number }>>;
}

export const META_FILE = 'meta.json';

export function readMeta(dir: string): ChainsMeta | null {
  try {
    const m = JSON.parse(readFileSync(join(dir, META_FILE), 'utf8')) as Partial<ChainsMeta>;
    if (
      typeof m.seed !== 'number' ||
      typeof m.origin !== 'number' ||
      typeof m.chains !== 'object' ||
      !m.chains
    )
      return null;
    const history = typeof m.history === 'number' ? m.history : 0;
    return { seed: m.seed, history, origin: m.origin, chains: m.chains };
  } catch {
    return null;
  }
}

/** Serialises updates (chains stop in parallel) and replaces the file atomically. */
export class MetaWriter {
  private meta: ChainsMeta;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly dir: string,
    initial: ChainsMeta,
  ) {
    this.meta = initial;
  }

  /** Records a chain's head (`newest`), or forgets the chain (null) while its state is rebuilt. */
  set(chain: string, entry: { chainId: number; newest: number } | null): Promise<void> {
    const chains = { ...this.meta.chains };
    if (entry) chains[chain] = entry;
    else delete chains[chain];
    this.meta = { ...this.meta, chains };
    return this.save();
  }

  save(): Promise<void> {
    const snapshot = this.meta;
    // A failed write must not block the ones after it.
    this.queue = this.queue
      .catch(() => {})
      .then(() => {
        const tmp = join(this.dir, `${META_FILE}.tmp`);
        writeFileSync(tmp, `${JSON.stringify(snapshot, null, 2)}\n`);
        renameSync(tmp, join(this.dir, META_FILE));
      });
    return this.queue;
  }
}
