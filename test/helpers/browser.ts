import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { type Browser, chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Git-ignored (out/): screenshots of every page type at both widths, to look at. */
export const SHOTS = 'out/screenshots';

/**
 * Debian's chromium, headless (scripts/test.sh installs it): a missing browser is a failure, not a
 * skip. Also makes the screenshot folder.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no browser at ${CHROMIUM} (apt-get install chromium)`);
  const browser = await chromium.launch({
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
  await mkdir(SHOTS, { recursive: true });
  return browser;
}
