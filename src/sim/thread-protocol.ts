import type { RpcSimulatorOptions } from './rpc/server.ts';
import type { SimulatorOptions } from './server.ts';

/** What a simulator thread is started with (src/sim/sim-thread.ts): plain data only. */
export type SimThreadData =
  | { readonly kind: 'http'; readonly options: ThreadedSimulatorOptions }
  | {
      readonly kind: 'rpc';
      readonly options: Omit<RpcSimulatorOptions, 'headOf'>;
      /** The chains whose heads `heads` holds, in slot order. */
      readonly chains: readonly string[];
      readonly heads: SharedArrayBuffer;
    };

/** The HTTP simulator's options that cross a thread: a trades-per-hour function does not. */
export type ThreadedSimulatorOptions = Omit<SimulatorOptions, 'tradesPerHour'> & {
  readonly tradesPerHour?: number;
};

/** A call of one of the simulator's control methods. */
export interface SimThreadCall {
  readonly id: number;
  readonly method: string;
  readonly args: readonly unknown[];
}

export type SimThreadReply =
  | { readonly type: 'ready'; readonly info: Readonly<Record<string, unknown>> }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'result'; readonly id: number; readonly value: unknown }
  | { readonly type: 'error'; readonly id: number; readonly message: string };
