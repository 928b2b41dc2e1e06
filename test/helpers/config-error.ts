import { expect } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

/** The message loadConfig refuses `env` with (a ConfigError); fails the test when it is accepted. */
export function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}
