/** Issue 28 item 18: llm-context lists a filter only with the values it accepts. */
import { describe, expect, it } from 'vitest';
import { benchmarkMarkdown, llmContextMarkdown } from '../../src/core/markdown.ts';
import { sampleStats } from '../fixtures/sample-stats.ts';

describe('llm-context filters', () => {
  const [coverage] = sampleStats();
  // As the specs declare it: region's values come from the data, so the Stat lists none.
  const stat = {
    ...coverage!,
    dimensions: {
      region: [],
      kind: [
        { value: 'dex-index', label: 'DEX index' },
        { value: 'asset-registry', label: 'Asset registry' },
      ],
    },
  };

  it('prints no "- Filter" line for a dimension without values, and every other one', () => {
    const md = benchmarkMarkdown(stat);
    expect(md).not.toMatch(/- Filter `region`/);
    expect(md).not.toMatch(/^- Filter `[a-z]+`: *$/m);
    expect(md).toContain('- Filter `kind`: `dex-index` (DEX index), `asset-registry` (Asset registry)');
    const doc = llmContextMarkdown([stat], { name: 'Citebench', baseUrl: 'https://x.test' });
    expect(doc).not.toMatch(/- Filter `region`/);
    expect(doc).toContain('- Filter `kind`:');
  });
});
