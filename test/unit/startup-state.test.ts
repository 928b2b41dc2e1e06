import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { bindServer } from '../../src/http/node-server.ts';
import { answerStarting, STARTING_RETRY_AFTER_S } from '../../src/http/starting.ts';
import { StartupState } from '../../src/startup-state.ts';

/** The start-up state and the answers given from it, on a real socket (as start-up binds it). */

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

async function serving(state: StartupState): Promise<string> {
  const { server, port } = await bindServer(0, '127.0.0.1', (req, res) => answerStarting(req, res, state));
  servers.push(server);
  return `http://127.0.0.1:${port}`;
}

describe('start-up state', () => {
  it('sums the backfill parts, each at its latest report, and ignores reports that cannot be right', () => {
    const s = new StartupState();
    expect(s.progress).toBeUndefined();
    s.backfill('cycles', 3, 156);
    expect(s.progress).toEqual({ done: 3, total: 156 });
    s.backfill('rpc-slots', 12, 72);
    s.backfill('cycles', 10, 156);
    expect(s.progress).toEqual({ done: 22, total: 228 });
    s.backfill('cycles', 200, 156); // never past its total
    s.backfill('rpc-slots', 5, 0); // no total: ignored
    expect(s.progress).toEqual({ done: 168, total: 228 });
    expect(s.ready).toBe(false);
    s.markReady();
    expect(s.ready).toBe(true);
  });

  it('/healthz says starting (with the backfill once one reports); every other route 503 `starting`', async () => {
    const state = new StartupState();
    const base = await serving(state);
    const first = await fetch(`${base}/healthz?probe=1`);
    expect(first.status).toBe(503);
    expect(await first.json()).toEqual({ status: 'starting' });
    state.backfill('cycles', 4, 12);
    const later = await fetch(`${base}/healthz`);
    expect(later.headers.get('retry-after')).toBe(String(STARTING_RETRY_AFTER_S));
    expect(await later.json()).toEqual({ status: 'starting', backfill: { done: 4, total: 12 } });

    for (const [path, init] of [
      ['/api/citable', {}],
      ['/healthz', { method: 'POST' }],
      ['/api/mcp/mcp', { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' }],
    ] as const) {
      const r = await fetch(`${base}${path}`, init);
      expect(r.status, path).toBe(503);
      expect(r.headers.get('retry-after'), path).toBe(String(STARTING_RETRY_AFTER_S));
      expect(r.headers.get('cache-control'), path).toBe('no-store');
      expect(r.headers.get('access-control-allow-origin'), path).toBe('*');
      const body = (await r.json()) as { error: string; message: string };
      expect(body.error, path).toBe('starting');
      expect(body.message, path).toContain('backfilling: 4 of 12 steps done');
    }
    const head = await fetch(`${base}/api/citable`, { method: 'HEAD' });
    expect(head.status).toBe(503);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await head.text()).toBe('');
  });
});
