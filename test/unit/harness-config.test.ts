import { describe, expect, it } from 'vitest';
import { DEFAULT_BASE_URLS, HarnessConfigError, loadHarnessConfig } from '../../src/harness/config.ts';
import { guard } from '../../src/harness/types.ts';
import { loadProviderCatalogue } from '../../src/publication/load-specs.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';

describe('harness configuration', () => {
  // Before the catalogue is loaded nothing says which providers need a key: refused, not guessed.
  it('refuses to run before the provider catalogue is loaded', async () => {
    expect(() => loadHarnessConfig({})).toThrow(/provider catalogue is not loaded/);
    await loadProviderCatalogue(BENCHMARKS_DIR);
  });

  it('defaults: production base URLs, 30 s timeout, keyed providers without keys not configured', () => {
    const c = loadHarnessConfig({});
    expect(c.timeoutMs).toBe(30_000);
    expect(c.cellConcurrency).toBe(1);
    expect(c.providers.mobula).toMatchObject({
      baseUrl: DEFAULT_BASE_URLS.mobula,
      configured: false,
      concurrency: 2,
    });
    expect(c.providers.mobula.apiKey).toBeUndefined();
    expect(c.providers.geckoterminal.configured).toBe(true);
    // Sim by Dune accepts a key but does not need one.
    expect(c.providers['sim-dune'].configured).toBe(true);
    expect(c.cycleDeadlineMs).toBeUndefined();
  });

  it('reads keys, base-URL, timeout and concurrency overrides per provider', () => {
    const c = loadHarnessConfig({
      MOBULA_API_KEY: ' mk ',
      SIM_DUNE_BASE_URL: 'http://127.0.0.1:9999/sim-dune/',
      SIM_DUNE_TIMEOUT_MS: '1500',
      CODEX_CONCURRENCY: '4',
      HARNESS_TIMEOUT_MS: '5000',
      HARNESS_CYCLE_DEADLINE_MS: '60000',
    });
    expect(c.providers.mobula).toMatchObject({ apiKey: 'mk', configured: true, timeoutMs: 5000 });
    expect(c.providers['sim-dune']).toMatchObject({
      baseUrl: 'http://127.0.0.1:9999/sim-dune',
      timeoutMs: 1500,
    });
    expect(c.providers.codex.concurrency).toBe(4);
    expect(c.cycleDeadlineMs).toBe(60_000);
  });

  it('an empty key counts as missing', () => {
    expect(loadHarnessConfig({ BITQUERY_API_KEY: '  ' }).providers.bitquery.configured).toBe(false);
  });

  it('lists every bad variable by name', () => {
    try {
      loadHarnessConfig({ HARNESS_TIMEOUT_MS: 'soon', COVALENT_BASE_URL: 'ftp://x', CODEX_TIMEOUT_MS: '-1' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(HarnessConfigError);
      const m = (e as Error).message;
      expect(m).toContain('HARNESS_TIMEOUT_MS');
      expect(m).toContain('COVALENT_BASE_URL');
      expect(m).toContain('CODEX_TIMEOUT_MS');
    }
  });

  it('names each bad variable with its value and the reason, on one line; never an API key', () => {
    expect(() =>
      loadHarnessConfig({
        HARNESS_TIMEOUT_MS: 'soon',
        HARNESS_MAX_PAGES: '1e3',
        COVALENT_BASE_URL: 'ftp://x',
        MOBULA_API_KEY: 'sk-secret',
      }),
    ).toThrow(
      new HarnessConfigError(
        'invalid harness configuration: HARNESS_TIMEOUT_MS=soon is not a positive integer; HARNESS_MAX_PAGES=1e3 is not a positive integer; COVALENT_BASE_URL=ftp://x is not an http(s) URL',
      ),
    );
  });

  it('an adapter that throws becomes a failure, never a crash', async () => {
    const r = await guard(async () => {
      throw new TypeError('boom');
    });
    expect(r).toEqual({ ok: false, failure: { type: 'parse', message: 'unexpected error: boom' } });
  });
});
