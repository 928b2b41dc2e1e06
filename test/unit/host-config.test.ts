import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('HOST is checked with the other variables', () => {
  it('a host name or an IP address; a URL, a port or a path is refused naming HOST', () => {
    for (const h of ['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost', 'bench-1.internal.example'])
      expect(loadConfig({ HOST: h }).host, h).toBe(h);
    for (const h of ['http://0.0.0.0', 'localhost:8080', '0.0.0.0/24', '', ' ', '-bad.example']) {
      expect(() => loadConfig({ HOST: h }), h).toThrow(ConfigError);
      expect(() => loadConfig({ HOST: h }), h).toThrow(/HOST=.* is not a host name or IP address/);
    }
  });
});
