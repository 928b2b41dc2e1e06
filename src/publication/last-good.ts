import type { Stat } from '../core/api-schemas.ts';
import { serve } from './served.ts';
import { type Served, UnavailableError } from './types.ts';

/** The last Stat view computed per key, for when the store cannot be read. */
export class LastGoodStats {
  private readonly lastGood = new Map<string, Served<Stat>>();
  private readonly degradedOf = new WeakMap<Served<Stat>, Served<Stat>>();

  /** `room`: keys kept before the map clears (the view caches' room). */
  constructor(private readonly room: number) {}

  /**
   * Backend down: the last computed view, marked `degraded: true`, instead of a 503 (only a view
   * never computed fails). New samples or the next recompute after recovery replace it.
   */
  async orLastGood(key: string, compute: () => Promise<Served<Stat>>): Promise<Served<Stat>> {
    try {
      const v = await compute();
      if (this.lastGood.size >= this.room && !this.lastGood.has(key)) this.lastGood.clear();
      this.lastGood.set(key, v);
      return v;
    } catch (e) {
      const last = this.lastGood.get(key);
      if (!(e instanceof UnavailableError) || !last) throw e;
      let d = this.degradedOf.get(last);
      if (!d) {
        d = serve({ ...last.value, degraded: true as const });
        this.degradedOf.set(last, d);
      }
      return d;
    }
  }
}
