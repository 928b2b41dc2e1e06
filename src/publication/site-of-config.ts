import type { Config } from '../config.ts';
import type { Site } from '../core/urls.ts';

/** What of the configuration names the site a publication publishes under. */
export type SiteConfig = Pick<Config, 'siteName' | 'baseUrl'> & {
  readonly simulated?: boolean;
  readonly sourceUrl?: string | null;
};

/** The site a configuration publishes under; without SOURCE_URL, the default source (the demo's). */
export function siteOfConfig(config: SiteConfig): Site {
  const { siteName, baseUrl, sourceUrl } = config;
  return { name: siteName, baseUrl, ...(sourceUrl ? { sourceUrl } : {}) };
}
