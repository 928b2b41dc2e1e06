import { type PackedSeriesInput, packedBuffers, unpackSeriesInput } from '../core/packed-samples.ts';
import { evaluateSeries } from '../core/series.ts';
import type { ProviderEntry } from '../core/spec-schema.ts';

/** A series' grid as a worker gets it: the samples packed as the store read them (buffers moved). */
export interface SeriesTask {
  readonly providers: readonly ProviderEntry[];
  readonly input: PackedSeriesInput;
  readonly timestamps: readonly number[];
  readonly windowMs: number;
}

export type SeriesTaskResult = [slug: string, values: (number | null)[]][];

/** On the event loop: nothing per sample; the packed samples' buffers are moved. */
export function seriesTask(
  providers: readonly ProviderEntry[],
  input: PackedSeriesInput,
  timestamps: readonly number[],
  windowMs: number,
): { task: SeriesTask; transfer: ArrayBuffer[] } {
  return { task: { providers, input, timestamps, windowMs }, transfer: packedBuffers(input.samples) };
}

/** In the worker: the same evaluation the event loop would have done. */
export function runSeriesTask(t: SeriesTask): SeriesTaskResult {
  return [...evaluateSeries(t.providers, unpackSeriesInput(t.input), t.timestamps, t.windowMs)];
}
