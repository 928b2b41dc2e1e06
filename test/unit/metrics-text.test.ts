/**
 * Issue 26 item 1 (admission), in part: /metrics is no longer refused while the event loop is
 * saturated; scrapes share a rendering, and under load a text at most 5 s old is answered.
 */
import { Counter, Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { METRICS_STALE_MS, MetricsText } from '../../src/http/metrics-text.ts';
import { loadShedder } from '../../src/load-shed.ts';
import { startServer } from '../helpers/server.ts';

function registry() {
  const r = new Registry();
  const c = new Counter({ name: 'things_total', help: 'things', registers: [r] });
  const render = vi.spyOn(r, 'metrics');
  return { r, c, render };
}

describe('/metrics text', () => {
  it('concurrent scrapes share one rendering', async () => {
    const { r, c, render } = registry();
    const m = new MetricsText(r, () => false);
    c.inc(3);
    const texts = await Promise.all(Array.from({ length: 20 }, () => m.text()));
    expect(render).toHaveBeenCalledTimes(1);
    expect(new Set(texts).size).toBe(1);
    expect(texts[0]).toContain('things_total 3');
  });

  it('not overloaded: every scrape after the last rendering renders again (a change shows at once)', async () => {
    const { r, c, render } = registry();
    const m = new MetricsText(r, () => false);
    expect(await m.text()).toContain('things_total 0');
    c.inc();
    expect(await m.text()).toContain('things_total 1');
    expect(render).toHaveBeenCalledTimes(2);
  });

  it(`overloaded: a text under ${METRICS_STALE_MS} ms old is answered without rendering; an older one renders again`, async () => {
    const { r, c, render } = registry();
    let now = 1_000;
    let overloaded = false;
    const m = new MetricsText(
      r,
      () => overloaded,
      () => now,
    );
    await m.text();
    overloaded = true;
    c.inc(5);
    now += METRICS_STALE_MS - 1;
    expect(await m.text()).toContain('things_total 0');
    expect(render).toHaveBeenCalledTimes(1);
    now += 1;
    expect(await m.text()).toContain('things_total 5');
    expect(render).toHaveBeenCalledTimes(2);
  });

  it('a real service answers /metrics while the loop is saturated (it was 503 busy before issue 26)', async () => {
    const srv = await startServer({ samples: [] });
    const overloaded = vi.spyOn(loadShedder, 'overloaded').mockReturnValue(true);
    try {
      for (let i = 0; i < 3; i++) {
        const res = await srv.get('/metrics');
        expect(res.status).toBe(200);
        expect(await res.text()).toMatch(/^http_hot_path_replays_total /m);
      }
    } finally {
      overloaded.mockRestore();
      await srv.close();
    }
  });
});
