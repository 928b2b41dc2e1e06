import type { StateStore } from '../store/sample-store.ts';

/** Consecutive 5xx cycles before a provider is marked unresponsive. */
export const UNRESPONSIVE_AFTER = 3;

export interface UnresponsiveState {
  readonly streak: number;
  readonly marked: boolean;
}

/**
 * ok: some probe of the provider succeeded this cycle. 5xx: none did and at least one ended in a 5xx.
 * other: none did and none got a 5xx (timeouts, auth, parse…). none: nothing ran (deadline).
 */
export type ProviderCycleOutcome = 'ok' | '5xx' | 'other' | 'none';

export function nextUnresponsive(prev: UnresponsiveState, outcome: ProviderCycleOutcome): UnresponsiveState {
  switch (outcome) {
    case 'ok':
      return { streak: 0, marked: false };
    case '5xx': {
      const streak = prev.streak + 1;
      return { streak, marked: prev.marked || streak >= UNRESPONSIVE_AFTER };
    }
    case 'other':
      // Breaks the run of consecutive 5xx cycles, but only a success clears the mark.
      return { streak: 0, marked: prev.marked };
    case 'none':
      return prev;
  }
}

export function unresponsiveKey(benchmark: string, provider: string): string {
  return `harness:unresponsive:${benchmark}:${provider}`;
}

export async function loadUnresponsive(store: StateStore, key: string): Promise<UnresponsiveState> {
  const raw = await store.getState(key);
  if (!raw) return { streak: 0, marked: false };
  try {
    const v = JSON.parse(raw) as Partial<UnresponsiveState>;
    return {
      streak: typeof v.streak === 'number' && v.streak >= 0 ? v.streak : 0,
      marked: v.marked === true,
    };
  } catch {
    return { streak: 0, marked: false };
  }
}
