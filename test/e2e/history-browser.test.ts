/**
 * The History section in a real browser (issue 25 part 2), at 1280 and 390 px: the chart fits the
 * screen without sideways scroll, its smallest text stays readable on a phone, and the range links
 * work with JavaScript off, keeping the view's filters.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, SHOTS } from '../helpers/browser.ts';
import { type Running, startServer } from '../helpers/server.ts';

/** The smallest on-screen text size we call readable on a phone, in CSS pixels. */
const MIN_TEXT_PX = 10;
let srv: Running;
let browser: Browser;

beforeAll(async () => {
  srv = await startServer({ simulated: true });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await srv?.close();
});

/** The chart is visible, within the screen, its smallest text readable and none of it cut off. */
async function fits(page: Page, width: number, path: string): Promise<void> {
  const chart = page.getByTestId('history').locator('svg');
  await chart.scrollIntoViewIfNeeded();
  expect(await chart.isVisible(), path).toBe(true);
  const box = await chart.boundingBox();
  expect(box?.width ?? 0, path).toBeGreaterThan(300);
  expect((box?.x ?? 0) + (box?.width ?? 0), path).toBeLessThanOrEqual(width);
  // On-screen size of the smallest text: its font size times the SVG's scale.
  const smallest = await chart.evaluate((svg) => {
    const scale = svg.getBoundingClientRect().width / (svg as SVGSVGElement).viewBox.baseVal.width;
    const sizes = [...svg.querySelectorAll('text')].map((t) => Number(t.getAttribute('font-size')));
    return Math.min(...sizes) * scale;
  });
  expect(smallest, path).toBeGreaterThanOrEqual(MIN_TEXT_PX);
  // Nothing of the chart's text is cut by its own box.
  const cut = await chart.evaluate((svg) => {
    const r = svg.getBoundingClientRect();
    return [...svg.querySelectorAll('text')]
      .filter((t) => {
        const b = t.getBoundingClientRect();
        return (
          b.left < r.left - 0.5 || b.right > r.right + 0.5 || b.bottom > r.bottom + 0.5 || b.top < r.top - 0.5
        );
      })
      .map((t) => t.textContent);
  });
  expect(cut, path).toEqual([]);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, path).toBeLessThanOrEqual(0);
}

describe('History chart in a browser', () => {
  for (const width of [1280, 390]) {
    it(`fits ${width} px, stays readable, and its range links work without JavaScript`, async () => {
      const context = await browser.newContext({
        viewport: { width, height: 900 },
        javaScriptEnabled: false,
      });
      const page = await context.newPage();
      // A count with eight providers (the widest unit label, the longest legend), then a percentage.
      for (const path of [
        '/benchmarks/network-coverage?range=30d',
        '/benchmarks/token-trade-coverage?chain=base',
      ]) {
        await page.goto(`${srv.url}${path}`);
        await fits(page, width, path);
      }
      // The section checked, not the whole page: a full-page capture of a tall page is Chromium's
      // slow path (tens of seconds on a busy machine, test/e2e/pages-browser.test.ts).
      await page.getByTestId('history').screenshot({ path: `${SHOTS}/history-${width}.png` });

      await page
        .getByRole('navigation', { name: 'History range' })
        .getByRole('link', { name: '90 days' })
        .click();
      await page.waitForURL(/range=90d/);
      const url = new URL(page.url());
      expect(url.searchParams.get('chain')).toBe('base');
      expect(url.searchParams.get('range')).toBe('90d');
      const current = page.getByRole('navigation', { name: 'History range' }).locator('a[aria-current]');
      expect(await current.textContent()).toBe('90 days');
      expect(await page.getByTestId('history').locator('desc').textContent()).toContain('(91 points)');
      await fits(page, width, page.url());
      await context.close();
    }, 60_000);
  }
});
