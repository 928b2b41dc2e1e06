import type { Site } from './urls.ts';

/**
 * SOURCE_URL: where the harness that measured the numbers is published (one setting for the site,
 * not a spec field). A `{family}` in it becomes each benchmark's family, so one template can point
 * every benchmark at its own family folder (src/harness/families/<family>/).
 */

export const FAMILY_PLACEHOLDER = '{family}';

/**
 * The demo's and `--simulate`'s source when SOURCE_URL is unset: the methodology's section on the
 * harness (today's provenance, spec hashes and source), on this very site.
 */
export function defaultSourceUrl(baseUrl: string): string {
  return `${baseUrl}/methodology#harness`;
}

/** Why a SOURCE_URL cannot be used (phrased to follow the variable's name), or null when it can. */
export function sourceUrlProblem(template: string): string | null {
  const other = /\{[^}]*\}/.exec(template.replaceAll(FAMILY_PLACEHOLDER, ''));
  if (other) return `has an unknown placeholder ${other[0].slice(0, 40)} (only {family} is replaced)`;
  const example = template.replaceAll(FAMILY_PLACEHOLDER, 'json-rpc');
  const hint =
    'is not an absolute http(s) URL of the harness source, e.g. https://github.com/you/citebench/tree/main/src/harness/families/{family}';
  // new URL() alone takes "localhost:8080/x" as a URL with the scheme "localhost:".
  if (!/^https?:\/\/[^\s]+$/i.test(example)) return hint;
  try {
    return new URL(example).hostname === '' ? hint : null;
  } catch {
    return hint;
  }
}

/** The harness source of one benchmark, as its Stat, index row, page and Markdown name it. */
export function harnessSourceUrl(site: Site, family: string): string {
  return (site.sourceUrl ?? defaultSourceUrl(site.baseUrl)).replaceAll(FAMILY_PLACEHOLDER, family);
}
