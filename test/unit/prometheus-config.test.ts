import { describe, expect, it } from 'vitest';
import { loadStoreConfig } from '../../src/store/prometheus-config.ts';

describe('store configuration', () => {
  it('defaults to the embedded store', () => {
    expect(loadStoreConfig({})).toEqual({ backend: 'embedded' });
  });

  it('reads the Prometheus variables with their defaults', () => {
    expect(loadStoreConfig({ STORE: 'prometheus', PROMETHEUS_URL: 'http://127.0.0.1:9090/' })).toEqual({
      backend: 'prometheus',
      replicaPollMs: 5_000,
      prometheus: {
        url: 'http://127.0.0.1:9090',
        writeUrl: 'http://127.0.0.1:9090/api/v1/write',
        timeoutMs: 10_000,
        bufferSamples: 1_000_000,
      },
    });
    const c = loadStoreConfig({
      STORE: 'prometheus',
      PROMETHEUS_URL: 'https://vmselect:8481/select/0/prometheus',
      PROMETHEUS_WRITE_URL: 'https://vminsert:8480/insert/0/prometheus/api/v1/write',
      PROMETHEUS_BASIC_AUTH: 'user:pa:ss',
      PROMETHEUS_TENANT: 'team-a',
      PROMETHEUS_TIMEOUT_MS: '2500',
      PROMETHEUS_BUFFER_SAMPLES: '5000',
      REPLICA_POLL_MS: '250',
    });
    expect(c.backend === 'prometheus' && c.replicaPollMs).toBe(250);
    expect(c.backend === 'prometheus' && c.prometheus).toMatchObject({
      url: 'https://vmselect:8481/select/0/prometheus',
      writeUrl: 'https://vminsert:8480/insert/0/prometheus/api/v1/write',
      basicAuth: { username: 'user', password: 'pa:ss' },
      tenant: 'team-a',
      timeoutMs: 2500,
      bufferSamples: 5000,
    });
  });

  it('names the variable and echoes the bad value, secrets excepted', () => {
    const bad = (env: Record<string, string>) => () =>
      loadStoreConfig({ STORE: 'prometheus', PROMETHEUS_URL: 'http://p:9090', ...env });
    expect(() => loadStoreConfig({ STORE: 'influx' })).toThrow(
      'STORE must be "embedded" or "prometheus" (got "influx")',
    );
    expect(() => loadStoreConfig({ STORE: 'prometheus' })).toThrow('PROMETHEUS_URL is required');
    expect(bad({ PROMETHEUS_URL: 'ftp://x' })).toThrow(
      'PROMETHEUS_URL must use http or https (got "ftp://x")',
    );
    expect(bad({ PROMETHEUS_URL: 'http://u:secret@p:9090' })).toThrow(
      /PROMETHEUS_URL must not carry credentials/,
    );
    expect(bad({ PROMETHEUS_URL: 'http://u:secret@p:9090' })).not.toThrow(/secret/);
    expect(bad({ PROMETHEUS_WRITE_URL: 'not a url' })).toThrow(
      'PROMETHEUS_WRITE_URL must be an http(s) URL (got "not a url")',
    );
    expect(bad({ PROMETHEUS_TIMEOUT_MS: '10s' })).toThrow(
      'PROMETHEUS_TIMEOUT_MS must be an integer from 1 to 600000 (got "10s")',
    );
    expect(bad({ PROMETHEUS_BUFFER_SAMPLES: '0' })).toThrow('PROMETHEUS_BUFFER_SAMPLES must be an integer');
    expect(bad({ REPLICA_POLL_MS: '5s' })).toThrow(
      'REPLICA_POLL_MS must be an integer from 1 to 3600000 (got "5s")',
    );
    expect(bad({ PROMETHEUS_BASIC_AUTH: 'nopassword' })).toThrow(
      'PROMETHEUS_BASIC_AUTH must be "user:password" (value not shown)',
    );
    expect(bad({ PROMETHEUS_BASIC_AUTH: 'a:b', PROMETHEUS_BEARER_TOKEN: 't' })).toThrow('not both');
    expect(bad({ PROMETHEUS_TENANT: 'a/b' })).toThrow(
      'PROMETHEUS_TENANT must be 1-150 printable characters without "/" (got "a/b")',
    );
  });
});
