import { describe, expect, it } from 'vitest';
import { formatValue } from '../../src/core/format.ts';
import { headline, metricPhrase, quote } from '../../src/core/headline.ts';

const base = {
  title: 'Onchain data API with most networks supported',
  metric: 'Networks supported',
  unit: 'count',
  allUnresponsive: false,
  filterLabel: null,
  neverRun: false,
};

describe('formatValue', () => {
  it('formats each unit', () => {
    expect(formatValue(1263, 'count')).toBe('1,263');
    expect(formatValue(100, 'pct')).toBe('100.0%');
    expect(formatValue(5.123, 'pct')).toBe('5.12%');
    expect(formatValue(0.5, 'pct')).toBe('0.500%');
    expect(formatValue(645, 'ms')).toBe('645 ms');
    expect(formatValue(1234, 'ms')).toBe('1.23 s');
    expect(formatValue(3.25, 'ms')).toBe('3.3 ms');
  });
});

describe('headline and quote', () => {
  it('names the leader, the metric, the value and the window', () => {
    // A listing count carried forward is dated by its own sample (issue 10, rule 4).
    expect(
      headline({ ...base, leaderName: 'GeckoTerminal', value: 263, asOf: Date.UTC(2026, 10, 20, 12, 0) }),
    ).toBe(
      'Onchain data API with most networks supported: GeckoTerminal leads with 263 networks supported (as of 2026-11-20 12:00 UTC).',
    );
    expect(
      headline({
        ...base,
        metric: 'Trade capture rate',
        unit: 'pct',
        leaderName: 'Mobula',
        value: 98.4,
        filterLabel: 'Solana',
      }),
    ).toBe(
      'Onchain data API with most networks supported: Mobula leads with a trade capture rate of 98.4% (p50 over 24h, Solana).',
    );
  });

  it('says a draft awaits its first run, and distinguishes empty or unresponsive views', () => {
    expect(headline({ ...base, leaderName: null, value: null, neverRun: true })).toBe(
      'Onchain data API with most networks supported. Awaiting its first run.',
    );
    expect(headline({ ...base, leaderName: null, value: null, filterLabel: 'Stellar' })).toContain(
      '(Stellar). No measurements in the last 24h.',
    );
    expect(headline({ ...base, leaderName: null, value: null, allUnresponsive: true })).toContain(
      'No provider responded',
    );
  });

  it('keeps acronyms and builds the quote', () => {
    expect(metricPhrase('RPC latency')).toBe('RPC latency');
    expect(quote('X leads.', 'Citebench', 'http://b/x')).toBe('X leads. Source: Citebench (http://b/x).');
    // Simulated data says so in the quote itself (issue 15), before the source.
    expect(quote('X leads.', 'Citebench', 'http://b/x', true)).toBe(
      'X leads. Simulated demo data, not a measurement. Source: Citebench (http://b/x).',
    );
  });
});
