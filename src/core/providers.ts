/**
 * The one provider registry. Specs and harness adapters refer to providers by slug only, so a
 * provider can never be labelled two ways (the reference shipped `dune` in the harness and
 * `sim-dune` in the spec). The providers are data: benchmarks/providers.yml, read beside the specs
 * (src/publication/load-specs.ts) and handed to `registerProviderCatalogue`; this module does no I/O.
 */
export interface ProviderInfo {
  readonly slug: string;
  readonly name: string;
  readonly website: string;
  /** Environment variable holding the API key, when the provider needs or accepts one. */
  readonly apiKeyEnv?: string;
  /** True when the provider's endpoints refuse requests without a key. */
  readonly keyRequired: boolean;
  /**
   * Chart color (hex), fixed per provider so a provider keeps its color on every chart, range and
   * filter; the catalogue's are distinct, Tableau-10-like hues readable on light and dark backgrounds.
   */
  readonly color: string;
  /** Benchmark families the provider can be measured in (a family names what is probed). */
  readonly families: readonly string[];
  /**
   * JSON-RPC endpoints by chain, from the provider's documentation: a URL template whose `{key}` is
   * filled from `apiKeyEnv`, or `per-user` where the provider issues each account its own URL
   * (set `<PROVIDER>_RPC_URL_<CHAIN>`). A chain it does not serve has no entry.
   */
  readonly rpc?: Readonly<Record<string, string>>;
}

/** The catalogue's marker for an endpoint the provider issues per account (no template exists). */
export const PER_USER_RPC = 'per-user';

const registry = new Map<string, ProviderInfo>();

/**
 * The catalogue's providers once it is loaded, plus synthetic ones only after
 * `registerSyntheticProviders` (benchmarks).
 */
export const PROVIDERS: ReadonlyMap<string, ProviderInfo> = registry;

/**
 * Installs the provider catalogue (benchmarks/providers.yml, already validated). Loading it again
 * replaces the real providers and keeps the synthetic ones, so a reload never duplicates nor
 * forgets a provider.
 */
export function registerProviderCatalogue(list: readonly ProviderInfo[]): void {
  for (const slug of [...registry.keys()]) if (!synthetic.has(slug)) registry.delete(slug);
  const kept = [...registry.values()];
  registry.clear();
  for (const p of list) registry.set(p.slug, p);
  for (const p of kept) if (!registry.has(p.slug)) registry.set(p.slug, p);
}

/** Most synthetic providers one run may register (two-digit numbers keep the slugs sortable). */
export const MAX_SYNTHETIC_PROVIDERS = 99;

const synthetic = new Set<string>();

/** True for a provider registered by `registerSyntheticProviders`. */
export function isSyntheticProvider(slug: string): boolean {
  return synthetic.has(slug);
}

/** HSL (degrees, 0–1, 0–1) to #rrggbb. */
function hslHex(h: number, s: number, l: number): string {
  const a = s * Math.min(l, 1 - l);
  const channel = (n: number) => {
    const k = (n + h / 30) % 12;
    const c = l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(c * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}

/**
 * Adds `synthetic-01` … `synthetic-NN` ("Synthetic 01" …) to the registry, for scale benchmarks that
 * need more providers per spec than the real ones (CITEBENCH_SYNTHETIC_PROVIDERS at start-up).
 * Never called in a normal run, so the registry is then exactly the real providers. Anything
 * published with them says so by name, and their website is on the reserved `.invalid` TLD so no
 * link points anywhere real. Colors step round the hue circle by the golden angle, so any count
 * gets distinct hues. Idempotent; returns the synthetic providers registered so far.
 */
export function registerSyntheticProviders(count: number): ProviderInfo[] {
  if (!Number.isInteger(count) || count < 0 || count > MAX_SYNTHETIC_PROVIDERS) {
    throw new RangeError(
      `synthetic providers: ${count} is not an integer from 0 to ${MAX_SYNTHETIC_PROVIDERS}`,
    );
  }
  for (let i = 1; i <= count; i++) {
    const n = String(i).padStart(2, '0');
    const slug = `synthetic-${n}`;
    if (registry.has(slug)) continue;
    synthetic.add(slug);
    registry.set(slug, {
      slug,
      name: `Synthetic ${n}`,
      website: `https://synthetic-${n}.invalid/`,
      keyRequired: false,
      color: hslHex((i * 137.508) % 360, 0.55, 0.5),
      // Measured by nothing: a synthetic provider may stand in any family (isSyntheticProvider).
      families: [],
    });
  }
  return [...synthetic].map((slug) => registry.get(slug) as ProviderInfo);
}

export function providerName(slug: string): string {
  return PROVIDERS.get(slug)?.name ?? slug;
}

/** A slug outside the registry (never published) still gets a neutral color rather than none. */
export function providerColor(slug: string): string {
  return PROVIDERS.get(slug)?.color ?? '#888888';
}
