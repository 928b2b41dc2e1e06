import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runExportCli } from '../../src/cli/export-cli.ts';
import { runHarnessCli } from '../../src/cli/harness-cli.ts';
import { runHarnessDaemon } from '../../src/cli/harness-daemon.ts';
import { SpecError } from '../../src/core/spec-schema.ts';
import { MISSING_SOURCE_URL } from '../../src/startup-failures.ts';
import { readSettings, type Settings } from '../../src/startup-settings.ts';
import { loadStoreConfig, StoreConfigError } from '../../src/store/prometheus-config.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';

/**
 * Start-up names every bad setting, one line each (src/startup-settings.ts): the service's
 * variables, the store's, SOURCE_URL for `serve`, HARNESS_* and the providers' variables, the demo's
 * DEMO_*; one bad setting is still exactly the one line it was. The CLI subcommands that read
 * settings say each the same way.
 */

const SERVE = { store: true, sourceUrl: true, harness: true } as const;
/** What every case starts from: settings that are all right (SOURCE_URL set, the real catalogue). */
const GOOD = {
  BENCHMARKS_DIR,
  SOURCE_URL: 'https://github.com/citebench/citebench/tree/main/src/harness/families/{family}',
};

const problemsOf = (s: Settings): readonly string[] => (s.ok ? [] : s.problems);

const dirs: string[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe('every start-up problem of the settings, one line each', () => {
  it('three bad settings of three sources are three lines, each naming its variable, in the order start-up reads them', async () => {
    const s = await readSettings({ ...GOOD, SOURCE_URL: '', PORT: 'abc', HARNESS_TIMEOUT_MS: 'abc' }, SERVE);
    expect(problemsOf(s)).toEqual([
      'invalid configuration: PORT=abc is not a port (an integer from 0 to 65535)',
      MISSING_SOURCE_URL,
      'invalid harness configuration: HARNESS_TIMEOUT_MS=abc is not a positive integer',
    ]);
  });

  it('one bad setting is the one line it always was', async () => {
    for (const [env, line] of [
      [{ PORT: 'abc' }, 'invalid configuration: PORT=abc is not a port (an integer from 0 to 65535)'],
      [{ SOURCE_URL: '' }, MISSING_SOURCE_URL],
      [
        { HARNESS_MAX_RETRIES: '11' },
        'invalid harness configuration: HARNESS_MAX_RETRIES=11 is not an integer from 0 to 10',
      ],
      [{ STORE: 'influx' }, 'STORE must be "embedded" or "prometheus" (got "influx")'],
      [{ STORE: 'prometheus' }, 'PROMETHEUS_URL is required when STORE=prometheus'],
    ] as const) {
      expect(problemsOf(await readSettings({ ...GOOD, ...env }, SERVE)), JSON.stringify(env)).toEqual([line]);
    }
  });

  it('several bad variables of one source are one line each, not one line joined by "; "', async () => {
    const s = await readSettings(
      {
        ...GOOD,
        DEMO_SEED: 'forty-two',
        DEMO_SPEED: '0',
        HOST: 'http://0.0.0.0',
        STORE: 'prometheus',
        PROMETHEUS_TIMEOUT_MS: '10s',
        REPLICA_POLL_MS: '5s',
        HARNESS_MAX_PAGES: '1e3',
        COVALENT_BASE_URL: 'ftp://x',
      },
      SERVE,
    );
    expect(problemsOf(s)).toEqual([
      'invalid configuration: HOST=http://0.0.0.0 is not a host name or IP address to listen on (e.g. 127.0.0.1, 0.0.0.0, ::)',
      'invalid configuration: DEMO_SEED=forty-two is not an integer',
      'invalid configuration: DEMO_SPEED=0 is not a number from 1 to 10000',
      'PROMETHEUS_URL is required when STORE=prometheus',
      'REPLICA_POLL_MS must be an integer from 1 to 3600000 (got "5s")',
      'PROMETHEUS_TIMEOUT_MS must be an integer from 1 to 600000 (got "10s")',
      'invalid harness configuration: HARNESS_MAX_PAGES=1e3 is not a positive integer',
      'invalid harness configuration: COVALENT_BASE_URL=ftp://x is not an http(s) URL',
    ]);
    for (const line of problemsOf(s)) expect(line).not.toContain('; ');
  });

  it('a secret stays hidden in its line', async () => {
    const s = await readSettings(
      {
        ...GOOD,
        PORT: 'abc',
        STORE: 'prometheus',
        PROMETHEUS_URL: 'http://127.0.0.1:9090',
        PROMETHEUS_BEARER_TOKEN: 'sk never shown',
      },
      SERVE,
    );
    expect(problemsOf(s)).toEqual([
      'invalid configuration: PORT=abc is not a port (an integer from 0 to 65535)',
      'PROMETHEUS_BEARER_TOKEN must not contain whitespace (value not shown)',
    ]);
  });

  it('good settings are read; SOURCE_URL is asked for only where real measurements are published', async () => {
    const s = await readSettings(
      { ...GOOD, PORT: '8099', STORE: 'prometheus', PROMETHEUS_URL: 'http://127.0.0.1:9090/' },
      SERVE,
    );
    if (!s.ok) throw new Error(s.problems.join('\n'));
    expect(s.config.port).toBe(8099);
    expect(s.store).toMatchObject({ backend: 'prometheus', prometheus: { url: 'http://127.0.0.1:9090' } });
    const simulated = await readSettings({ ...GOOD, SOURCE_URL: '' }, { ...SERVE, sourceUrl: false });
    expect(simulated.ok).toBe(true);
  });

  it('a provider catalogue that is not a valid spec is thrown when no setting is wrong, and waits behind the settings otherwise', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cb-bad-catalogue-'));
    dirs.push(dir);
    await writeFile(join(dir, 'providers.yml'), 'providers: 7\n');
    await expect(readSettings({ ...GOOD, BENCHMARKS_DIR: dir }, SERVE)).rejects.toBeInstanceOf(SpecError);
    expect(problemsOf(await readSettings({ ...GOOD, BENCHMARKS_DIR: dir, PORT: 'abc' }, SERVE))).toEqual([
      'invalid configuration: PORT=abc is not a port (an integer from 0 to 65535)',
    ]);
  });

  it('the store variables: every problem in the error, the message the one line it was for one', () => {
    try {
      loadStoreConfig({
        STORE: 'prometheus',
        PROMETHEUS_URL: 'ftp://p',
        PROMETHEUS_BASIC_AUTH: 'nopassword',
        PROMETHEUS_BUFFER_SAMPLES: '0',
      });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(StoreConfigError);
      expect((e as StoreConfigError).problems).toEqual([
        'PROMETHEUS_URL must use http or https (got "ftp://p")',
        'PROMETHEUS_BASIC_AUTH must be "user:password" (value not shown)',
        'PROMETHEUS_BUFFER_SAMPLES must be an integer from 1 to 100000000 (got "0")',
      ]);
    }
    expect(() =>
      loadStoreConfig({ STORE: 'prometheus', PROMETHEUS_URL: 'http://p', REPLICA_POLL_MS: 'x' }),
    ).toThrow(new StoreConfigError('REPLICA_POLL_MS must be an integer from 1 to 3600000 (got "x")'));
  });
});

describe('the CLI subcommands name every bad setting the same way', () => {
  const BAD = { ...GOOD, PORT: 'abc', DEMO_SEED: 'x' };
  const CONFIG_LINES = [
    'invalid configuration: PORT=abc is not a port (an integer from 0 to 65535)',
    'invalid configuration: DEMO_SEED=x is not an integer',
  ];

  it('export: one line each, exit 2', async () => {
    let err = '';
    const code = await runExportCli(['--from', '2026-01-01', '--to', '2026-01-01', '--out', '/nonexistent'], {
      env: BAD,
      err: (s) => {
        err += s;
      },
      out: () => undefined,
    });
    expect(code).toBe(2);
    expect(err.trimEnd().split('\n')).toEqual(CONFIG_LINES);
  });

  it('harness run: one line each, exit 2', async () => {
    const err: string[] = [];
    const code = await runHarnessCli(['run', 'token-trade-coverage', '--once'], {
      env: BAD,
      err: (s) => err.push(s),
      out: () => undefined,
    });
    expect(code).toBe(2);
    expect(err).toEqual(CONFIG_LINES.map((l) => `harness: ${l}`));
  });

  it('harness (the writer): its own rules with the others, one line each, exit 2', async () => {
    let err = '';
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      err += String(chunk);
      return true;
    });
    const code = await runHarnessDaemon([], {
      env: {
        ...BAD,
        STORE: 'prometheus',
        PROMETHEUS_URL: 'http://127.0.0.1:9',
        HARNESS_METRICS_PORT: 'x',
        HARNESS_TIMEOUT_MS: 'soon',
      },
    });
    vi.restoreAllMocks();
    expect(code).toBe(2);
    expect(err.trimEnd().split('\n')).toEqual([
      ...CONFIG_LINES.map((l) => `cannot start: ${l}`),
      expect.stringMatching(/^cannot start: BASE_URL is required with STORE=prometheus/),
      'cannot start: HARNESS_METRICS_PORT=x is not a port',
      'cannot start: invalid harness configuration: HARNESS_TIMEOUT_MS=soon is not a positive integer',
    ]);
  });
});
