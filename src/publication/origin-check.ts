import type { Store } from '../store/sample-store.ts';
import { readOrigins } from './sample-origins.ts';

/**
 * Whether the data is simulated: set by the mode the service runs in (the demo, `--simulate`), or
 * found in the store (samples labelled origin="simulated") at start-up or after an append. Once
 * set it stays.
 */
export class OriginCheck {
  private found: boolean;
  private pending: Promise<void>;

  /** `onFound` runs once, when simulated samples are first found (not when set by the mode). */
  constructor(
    private readonly store: Store,
    simulated: boolean,
    private readonly onFound: () => void,
  ) {
    this.found = simulated;
    this.pending = simulated ? Promise.resolve() : this.check();
  }

  get simulated(): boolean {
    return this.found;
  }

  /** Resolves once the start-up (or latest append's) look for simulated samples is done. */
  checked(): Promise<void> {
    return this.pending;
  }

  /** Looks at one append's time range, unless simulated data is known already. */
  afterAppend(minT: number, maxT: number): void {
    if (!this.found) this.pending = this.check({ notBefore: minT - 1, at: maxT });
  }

  /**
   * Looks for simulated samples (all of the store, or one append's time range). Finding any marks
   * every view simulated from then on (the façade drops every cached view built before).
   */
  private async check(range?: { notBefore: number; at: number }): Promise<void> {
    try {
      const o = await readOrigins(this.store, range);
      if (!o.simulated || this.found) return;
      this.found = true;
      this.onFound();
    } catch {
      // A store that cannot be read serves nothing either; the next append looks again.
    }
  }
}
