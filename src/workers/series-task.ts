import { type PackedSamples, packedBuffers, packSamples, unpackSamples } from '../core/packed-samples.ts';
import { evaluateSeries, type SeriesInput } from '../core/series.ts';
import type { ProviderEntry } from '../core/spec-schema.ts';

/** A series' grid as a worker gets it: the samples packed (their buffers moved, not copied). */
export interface SeriesTask {
  readonly providers: readonly ProviderEntry[];
  readonly mode: SeriesInput['mode'];
  readonly cellLabels: readonly string[];
  readonly samples: PackedSamples;
  readonly timestamps: readonly number[];
  readonly windowMs: number;
}

export type SeriesTaskResult = [slug: string, values: (number | null)[]][];

/** On the event loop: one pass over the samples, no per-sample label work (packed-samples.ts). */
export function seriesTask(
  providers: readonly ProviderEntry[],
  input: SeriesInput,
  timestamps: readonly number[],
  windowMs: number,
): { task: SeriesTask; transfer: ArrayBuffer[] } {
  const samples = packSamples(input.mode === 'latest' ? input.samples : input.values);
  const task: SeriesTask = {
    providers,
    mode: input.mode,
    cellLabels: input.mode === 'window' ? input.cellLabels : [],
    samples,
    timestamps,
    windowMs,
  };
  return { task, transfer: packedBuffers(samples) };
}

/** In the worker: the same evaluation the event loop would have done. */
export function runSeriesTask(t: SeriesTask): SeriesTaskResult {
  const samples = unpackSamples(t.samples);
  const input: SeriesInput =
    t.mode === 'latest'
      ? { mode: 'latest', samples }
      : { mode: 'window', cellLabels: t.cellLabels, values: samples };
  return [...evaluateSeries(t.providers, input, t.timestamps, t.windowMs)];
}
