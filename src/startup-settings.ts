import { type Config, ConfigError, loadConfig } from './config.ts';
import { HarnessConfigError, loadHarnessConfig } from './harness/config.ts';
import { loadProviderCatalogue } from './publication/provider-catalogue-file.ts';
import { MISSING_SOURCE_URL } from './startup-failures.ts';
import { loadStoreConfig, type StoreConfig, StoreConfigError } from './store/prometheus-config.ts';

/** Which settings a command reads, beyond the service's own variables (src/config.ts). */
export interface SettingsChecks {
  /** STORE and the PROMETHEUS_* variables (src/store/prometheus-config.ts). */
  readonly store: boolean;
  /** Real measurements (`serve` without --simulate) are published with SOURCE_URL: it must be set. */
  readonly sourceUrl: boolean;
  /**
   * HARNESS_* and the providers' variables (src/harness/config.ts), read with the provider
   * catalogue of BENCHMARKS_DIR, which says which keys exist: a folder without one is not checked.
   */
  readonly harness: boolean;
  /** A command's own rules on its variables (the writer's BASE_URL with STORE=prometheus). */
  readonly more?: (env: Readonly<Record<string, string | undefined>>) => readonly string[];
}

/** What a command starts with, or every problem with it (one line each, without "cannot start: "). */
export type Settings =
  | { readonly ok: true; readonly config: Config; readonly store: StoreConfig }
  | { readonly ok: false; readonly problems: readonly string[] };

/** `read`'s value, or its problems (a settings error) added to `problems`. */
function collect<T>(problems: string[], read: () => T): T | undefined {
  try {
    return read();
  } catch (e) {
    if (!(e instanceof ConfigError || e instanceof StoreConfigError || e instanceof HarnessConfigError)) {
      throw e;
    }
    problems.push(...e.problems);
    return undefined;
  }
}

/**
 * Every setting a command reads, checked before anything is touched, and every problem kept, in
 * the order start-up reads them: the service's variables, the store's, the command's own rules,
 * SOURCE_URL, the harness's. One bad variable is one line, as before; several are one line each,
 * so an operator fixes them in one go instead of one restart per variable. A spec error of the
 * provider catalogue (SpecError, thrown) is not a setting: it is thrown when no setting is wrong,
 * and with settings wrong the harness variables wait for the next start.
 */
export async function readSettings(
  env: Readonly<Record<string, string | undefined>>,
  checks: SettingsChecks,
): Promise<Settings> {
  const problems: string[] = [];
  const config = collect(problems, () => loadConfig(env));
  const store: StoreConfig | undefined = checks.store
    ? collect(problems, () => loadStoreConfig(env))
    : { backend: 'embedded' };
  problems.push(...(checks.more?.(env) ?? []));
  // Empty counts as unset, as src/config.ts reads it; a malformed one is the config's problem.
  if (checks.sourceUrl && (env.SOURCE_URL ?? '') === '') problems.push(MISSING_SOURCE_URL);
  if (checks.harness) {
    // BENCHMARKS_DIR is read as src/config.ts reads it, so a problem elsewhere still checks these.
    const benchmarksDir = config?.benchmarksDir ?? (env.BENCHMARKS_DIR || './benchmarks');
    const catalogue = await loadProviderCatalogue(benchmarksDir).catch((e: unknown) => {
      if (problems.length > 0) return null;
      throw e;
    });
    if (catalogue) collect(problems, () => loadHarnessConfig(env));
  }
  if (problems.length > 0 || config === undefined || store === undefined) return { ok: false, problems };
  return { ok: true, config, store };
}
