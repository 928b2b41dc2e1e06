import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Running, startServer } from './helpers/server.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
let srv: Running;
let browser: Browser;

beforeAll(async () => {
  // scripts/test.sh installs Debian's chromium; a missing browser is a failure, not a skip.
  if (!existsSync(CHROMIUM)) throw new Error(`no browser at ${CHROMIUM} (apt-get install chromium)`);
  srv = await startServer();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await srv?.close();
});

describe('benchmark page in a real browser', () => {
  it('shows the ranking, filters by chain through a link, and copies the quote', async () => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 1400 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: srv.url });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${srv.url}/benchmarks/token-trade-coverage`);
    const stat = await (await srv.get('/api/stat/token-trade-coverage')).json();
    expect(await page.title()).toBe(`${stat.title} · Citebench`);
    expect(await page.locator('tbody tr').count()).toBe(stat.rankings.length);
    expect(await page.getByTestId('headline').textContent()).toBe(stat.headline);

    await page.getByRole('link', { name: 'Solana', exact: true }).click();
    await page.waitForURL(/chain=solana/);
    expect(await page.getByTestId('headline').textContent()).toContain('Solana');

    await page.getByRole('button', { name: 'Copy quote' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Copied' }).count()).toBe(1);
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toContain('Source: Citebench (');
    expect(copied).toContain('chain=solana');

    await mkdir('out', { recursive: true });
    await page.screenshot({ path: 'out/benchmark-page.png', fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});
