/**
 * deploy/ (issue 27, item 8): the compose file parses, and names only what the code accepts: every
 * environment variable of a citebench service is one the configuration reads and its value passes
 * validation, its commands are ones the CLI runs, and the engine gets the flags and out-of-order
 * window the tests start Prometheus with (test/helpers/engines.ts). The systemd units likewise.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.ts';
import { loadHarnessConfig } from '../../src/harness/config.ts';
import { loadProviderCatalogue } from '../../src/publication/load-specs.ts';
import { loadStoreConfig } from '../../src/store/prometheus-config.ts';
import { engineArgs, PROMETHEUS_CONFIG } from '../helpers/engines.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';
import { ROOT } from '../helpers/service-process.ts';

const DEPLOY = join(ROOT, 'deploy');
/** The files that read the environment: a variable is accepted when one of them names it. */
const READERS = [
  'src/config.ts',
  'src/store/prometheus-config.ts',
  'src/harness/config.ts',
  'src/cli/harness-daemon.ts',
];

// The harness configuration checks provider keys against the catalogue, as a start does.
beforeAll(async () => {
  await loadProviderCatalogue(BENCHMARKS_DIR);
});

interface Service {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
}

async function compose(): Promise<Record<string, Service>> {
  const doc = parse(await readFile(join(DEPLOY, 'compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, Service>;
  };
  return doc.services;
}

async function expectAccepted(env: Record<string, string>, where: string): Promise<void> {
  const sources = (await Promise.all(READERS.map((f) => readFile(join(ROOT, f), 'utf8')))).join('\n');
  for (const name of Object.keys(env)) {
    expect(new RegExp(`\\b${name}\\b`).test(sources), `${where}: ${name} is read by no configuration`).toBe(
      true,
    );
  }
  // The values pass the same validation a start does (a wrong one would stop the service).
  expect(() => loadConfig(env), where).not.toThrow();
  expect(() => loadStoreConfig(env), where).not.toThrow();
  expect(() => loadHarnessConfig(env), where).not.toThrow();
}

describe('deploy/compose.yml', () => {
  it('parses, with the engine, a writer and two replicas', async () => {
    const s = await compose();
    expect(Object.keys(s).sort()).toEqual(['prometheus', 'replica-1', 'replica-2', 'writer']);
    expect(s.writer?.command).toEqual(['node', 'bin/citebench.mjs', 'harness', '--simulate']);
    for (const r of ['replica-1', 'replica-2']) {
      expect(s[r]?.command).toEqual(['node', 'bin/citebench.mjs', 'serve', '--simulate']);
      expect(s[r]?.environment?.HARNESS_ENABLED).toBe('false');
      expect(s[r]?.environment?.SNAPSHOT_DIR).toBe(s.writer?.environment?.SNAPSHOT_DIR);
      expect(s[r]?.environment?.BASE_URL).toBe(s.writer?.environment?.BASE_URL);
    }
  });

  it('every citebench variable is one the configuration reads, with a valid value', async () => {
    const s = await compose();
    for (const name of ['writer', 'replica-1', 'replica-2']) {
      await expectAccepted(s[name]?.environment ?? {}, name);
    }
  });

  it('starts Prometheus with the flags and out-of-order window the tests use', async () => {
    const s = await compose();
    const flag = (a: string) => a.replace(/^-+/, '').split('=')[0];
    const want = engineArgs('prometheus', '/data', 9090).map(flag).sort();
    expect((s.prometheus?.command ?? []).map(flag).sort()).toEqual(want);
    const config = parse(await readFile(join(DEPLOY, 'prometheus.yml'), 'utf8')) as {
      storage: { tsdb: { out_of_order_time_window: string } };
    };
    expect(config.storage.tsdb.out_of_order_time_window).toMatch(/^\d+d$/);
    expect(parse(PROMETHEUS_CONFIG)).toHaveProperty('storage.tsdb.out_of_order_time_window');
  });
});

describe('deploy/systemd', () => {
  for (const unit of ['citebench-harness.service', 'citebench-replica@.service']) {
    it(`${unit}: its Environment= variables are read and valid, and it runs a CLI command`, async () => {
      const text = await readFile(join(DEPLOY, 'systemd', unit), 'utf8');
      const env: Record<string, string> = {};
      for (const m of text.matchAll(/^Environment=([A-Z_]+)=(.*)$/gm)) {
        env[m[1] as string] = (m[2] as string).replace('%i', '8080');
      }
      // EnvironmentFile= gives the site's values; the engine's URL is one of them.
      await expectAccepted({ ...env, PROMETHEUS_URL: 'http://127.0.0.1:9090' }, unit);
      expect(text).toMatch(/^ExecStart=\/usr\/bin\/node bin\/citebench\.mjs (harness|serve)$/m);
    });
  }
});
