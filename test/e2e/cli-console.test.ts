import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { configError } from '../helpers/config-error.ts';
import { ROOT, spawnService, TEST_SOURCE_URL, until200 } from '../helpers/service-process.ts';

/**
 * Outer bounds, never budgets. Quiet, one CLI run (help, or a refused start) takes 0.5–1 s and
 * `serve --simulate` on an empty DATA_DIR has network-coverage measured within ~10 s; the bounds
 * allow 30 and 6 times that, and a test's timeout covers each of its runs at its bound.
 */
const CLI_MS = 30_000;
const SERVE_MS = 60_000;

function cli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, ['bin/citebench.mjs', ...args], {
    cwd: ROOT,
    env: { ...process.env, BASE_URL: 'http://127.0.0.1:1', SOURCE_URL: TEST_SOURCE_URL, ...env },
    encoding: 'utf8',
    timeout: CLI_MS,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('console polish', () => {
  it('--help on every subcommand prints help and starts nothing; help and --version work', () => {
    for (const args of [
      ['serve', '--help'],
      ['demo', '--help'],
      ['harness', '--help'],
      ['help'],
      ['help', 'serve'],
      ['--help'],
    ]) {
      const r = cli(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.out, args.join(' ')).toMatch(/usage: /);
      expect(r.out + r.err).not.toMatch(/listening|backfilling/);
    }
    const v = cli(['--version']);
    expect(v.code).toBe(0);
    expect(v.out).toMatch(/^citebench \d+\.\d+\.\d+\n$/);
  }, 210_000);

  it('export --help and help export print export’s usage on stdout and exit 0', () => {
    for (const args of [
      ['export', '--help'],
      ['export', '-h'],
      ['help', 'export'],
    ]) {
      const r = cli(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.out, args.join(' ')).toMatch(/^usage: citebench export --from YYYY-MM-DD --to YYYY-MM-DD/);
      expect(r.err, args.join(' ')).toBe('');
    }
  }, 90_000);

  it('every documented variable is validated and the bad value is echoed', () => {
    const bad = configError;
    expect(bad({ PORT: 'abc' })).toContain('PORT=abc is not a port');
    expect(bad({ DEMO_SEED: 'abc' })).toContain('DEMO_SEED=abc is not an integer');
    expect(bad({ HARNESS_ENABLED: 'yes' })).toContain('HARNESS_ENABLED=yes must be true or false');
    expect(bad({ BASE_URL: 'localhost:8080' })).toContain('BASE_URL=localhost:8080 is not an http(s) URL');
    expect(bad({ DEMO_SPEED: '0' })).toContain('DEMO_SPEED=0');
    expect(loadConfig({ BASE_URL: 'https://bench.example.org/' }).baseUrl).toBe('https://bench.example.org');
  });

  it('a bad variable stops serve with one line naming it', () => {
    const r = cli(['serve'], { PORT: 'abc' });
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toEqual([
      'cannot start: invalid configuration: PORT=abc is not a port (an integer from 0 to 65535)',
    ]);
  }, 30_000);

  it('each MCP_ALLOWED_ORIGINS entry must be an origin', () => {
    const refused = (v: string) => () => loadConfig({ MCP_ALLOWED_ORIGINS: v });
    expect(refused('notaurl')).toThrow(
      'MCP_ALLOWED_ORIGINS=notaurl is not a list of origins (scheme://host[:port], e.g. https://app.example.org): "notaurl" is not one',
    );
    for (const v of [
      'https://a.example/path',
      'ftp://a.example',
      'https://a.example, app.example',
      'https://',
    ])
      expect(refused(v), v).toThrow(ConfigError);
    expect(
      loadConfig({ MCP_ALLOWED_ORIGINS: 'https://a.example, http://localhost:3000/ ,http://[::1]:8080' })
        .mcpAllowedOrigins,
    ).toEqual(['https://a.example', 'http://localhost:3000/', 'http://[::1]:8080']);
  });

  it('a bad HARNESS_* value stops every mode, demo and serve --simulate included, naming value and reason', () => {
    for (const [args, env, line] of [
      [['demo'], { HARNESS_TIMEOUT_MS: 'soon' }, 'HARNESS_TIMEOUT_MS=soon is not a positive integer'],
      [
        ['serve', '--simulate'],
        { HARNESS_MAX_RETRIES: '11' },
        'HARNESS_MAX_RETRIES=11 is not an integer from 0 to 10',
      ],
      [
        ['serve'],
        { HARNESS_ENABLED: 'false', CODEX_TIMEOUT_MS: '-1' },
        'CODEX_TIMEOUT_MS=-1 is not a positive integer',
      ],
    ] as const) {
      const dir = mkdtempSync(join(tmpdir(), 'cb-harness-env-'));
      const r = cli([...args], {
        ...env,
        DATA_DIR: join(dir, 'data'),
        PORT: '0',
        MOBULA_API_KEY: 'sk-never-shown',
      });
      const what = args.join(' ');
      expect(r.code, what).toBe(2);
      expect(r.err.trim().split('\n'), what).toEqual([
        `cannot start: invalid harness configuration: ${line}`,
      ]);
      // Refused before DATA_DIR is touched.
      expect(existsSync(join(dir, 'data')), what).toBe(false);
    }
  }, 90_000);

  it('serve on an empty DATA_DIR measures at start-up, prints where to look, and a taken PORT is one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-empty-'));
    const p = await spawnService(
      { DATA_DIR: dir },
      { command: [process.execPath, 'bin/citebench.mjs', 'serve', '--simulate'] },
    );
    try {
      await p.waitFor(/open http:\/\/127\.0\.0\.1:\d+\/\n/, SERVE_MS);
      expect(p.output()).toMatch(/curl http:\/\/127\.0\.0\.1:\d+\/api\/citable/);
      await until200(`${p.base}/healthz`, SERVE_MS, p);
      // Not waiting for the next 6-hour slot: network-coverage has data within seconds.
      const end = Date.now() + SERVE_MS;
      let draft = true;
      while (draft && Date.now() < end) {
        const f = await (await fetch(`${p.base}/api/freshness`)).json();
        draft = f.status['network-coverage'].draft;
        if (draft) await new Promise((r) => setTimeout(r, 250));
      }
      expect(draft).toBe(false);
      const taken = cli(['serve'], {
        PORT: String(p.port),
        DATA_DIR: mkdtempSync(join(tmpdir(), 'cb-port-')),
        HARNESS_ENABLED: 'false',
      });
      expect(taken.code).toBe(2);
      // Log lines (timestamped) aside, the failure is one line.
      const lines = taken.err
        .trim()
        .split('\n')
        .filter((l) => !/^\d{4}-\d\d-\d\dT/.test(l));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^cannot start: .*already in use; set PORT/);
    } finally {
      p.child.kill('SIGTERM');
      await p.exited();
    }
  }, 210_000);
});
