import type { Registry } from 'prom-client';

/** How old a /metrics text may be when answered instead of a new one while the loop is overloaded. */
export const METRICS_STALE_MS = 5_000;

/**
 * The /metrics text. prom-client renders every series it holds, several ms of event loop each time:
 * 50 clients on /metrics alone took /api/stat from 30k to 0.5 req/s on 2 cores, and such scrapes
 * used to be refused with 503 while the loop was saturated. Now concurrent scrapes share one
 * rendering, and while the loop is overloaded a text at most METRICS_STALE_MS old is answered
 * instead of rendering again: at most one rendering per 5 s under load, and a scraper still gets
 * an answer (its samples are seconds old, which a scrape interval of 15 s or more does not see).
 */
export class MetricsText {
  private last: { readonly text: string; readonly at: number } | undefined;
  private running: Promise<string> | undefined;
  /** Renderings since start (tests). */
  renders = 0;

  constructor(
    private readonly registry: Pick<Registry, 'metrics'>,
    private readonly overloaded: () => boolean,
    private readonly now: () => number = () => performance.now(),
  ) {}

  text(): Promise<string> {
    if (this.running) return this.running;
    const last = this.last;
    if (last && this.now() - last.at < METRICS_STALE_MS && this.overloaded())
      return Promise.resolve(last.text);
    this.renders++;
    const p = this.registry.metrics().then((text) => {
      this.last = { text, at: this.now() };
      return text;
    });
    this.running = p;
    const clear = () => {
      if (this.running === p) this.running = undefined;
    };
    p.then(clear, clear);
    return p;
  }
}
