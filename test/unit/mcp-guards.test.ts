import { describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.ts';
import { readCappedBody } from '../../src/mcp/body.ts';
import { createOriginPolicy } from '../../src/mcp/origin-policy.ts';
import { escapeHtml } from '../../src/mcp/page.ts';
import { RateLimiter } from '../../src/mcp/rate-limit.ts';

describe('RateLimiter', () => {
  it('is a token bucket: burst of perMinute, then one token per 60/perMinute s', () => {
    let now = 0;
    const rl = new RateLimiter(6, 100, () => now);
    for (let i = 0; i < 6; i++) expect(rl.take('a').ok).toBe(true);
    expect(rl.take('a')).toEqual({ ok: false, retryAfterSec: 10 });
    now += 4_000;
    expect(rl.take('a')).toEqual({ ok: false, retryAfterSec: 6 });
    now += 6_000;
    expect(rl.take('a').ok).toBe(true);
    expect(rl.take('a').ok).toBe(false);
    // Another client has its own bucket.
    expect(rl.take('b').ok).toBe(true);
  });

  it('keeps at most maxKeys clients, evicting the least recently seen', () => {
    let now = 0;
    const rl = new RateLimiter(1, 3, () => now);
    for (const ip of ['a', 'b', 'c']) expect(rl.take(ip).ok).toBe(true);
    now += 1;
    expect(rl.take('a').ok).toBe(false); // refreshes a
    expect(rl.take('d').ok).toBe(true); // evicts b, the oldest
    expect(rl.size).toBe(3);
    expect(rl.take('b').ok).toBe(true); // b starts over with a full bucket
    expect(rl.take('a').ok).toBe(false); // a was kept
  });
});

describe('origin policy', () => {
  const policy = createOriginPolicy(
    testConfig({
      baseUrl: 'https://citebench.example',
      port: 8080,
      mcpAllowedHosts: ['mcp.internal:9000'],
      mcpAllowedOrigins: ['https://App.Example/'],
    }),
  );

  it('allows the base URL, loopback on the configured or actual port, and extras', () => {
    expect(policy.check('citebench.example', 'https://citebench.example').ok).toBe(true);
    expect(policy.check('localhost:8080', undefined).ok).toBe(true);
    expect(policy.check('127.0.0.1:8080', 'http://127.0.0.1:8080').ok).toBe(true);
    expect(policy.check('[::1]:8080', undefined).ok).toBe(true);
    expect(policy.check('127.0.0.1:5555', undefined, 5555).ok).toBe(true);
    expect(policy.check('mcp.internal:9000', 'https://app.example').ok).toBe(true);
    expect(policy.check('LOCALHOST:8080', undefined).ok).toBe(true);
  });

  it('refuses foreign hosts and origins', () => {
    expect(policy.check('evil.example', undefined)).toEqual({
      ok: false,
      reason: 'Host "evil.example" is not allowed',
    });
    expect(policy.check('localhost:9999', undefined, 5555).ok).toBe(false);
    expect(policy.check('localhost', undefined).ok).toBe(false);
    expect(policy.check(undefined, undefined).ok).toBe(false);
    expect(policy.check('localhost:8080', 'https://evil.example').ok).toBe(false);
    expect(policy.check('localhost:8080', 'null').ok).toBe(false);
    expect(policy.check('localhost:8080', 'http://localhost:8081').ok).toBe(false);
  });
});

describe('readCappedBody', () => {
  const req = (body: string, headers: Record<string, string> = {}) =>
    new Request('http://x/', { method: 'POST', body, headers });

  it('returns the text under the cap and refuses over it', async () => {
    expect(await readCappedBody(req('hello'), undefined, 5)).toEqual({ ok: true, text: 'hello' });
    expect(await readCappedBody(req('hello!'), undefined, 5)).toEqual({ ok: false, reason: 'too_large' });
    expect(await readCappedBody(req('hi', { 'content-length': '99' }), undefined, 5)).toEqual({
      ok: false,
      reason: 'too_large',
    });
  });
});

describe('escapeHtml', () => {
  it('escapes markup and quotes', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});
