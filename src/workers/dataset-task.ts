import { LoopSlice } from '../concurrency/next-turn.ts';
import { type PackedSamples, packedBuffers, packSamples, unpackSamples } from '../core/packed-samples.ts';
import type { Sample } from '../core/samples.ts';
import { type DatasetFiles, writeDatasetFilesFrom } from '../publication/dataset-files.ts';

/** A day's dataset files as a worker gets them: its batches packed (buffers moved, not copied). */
export interface DatasetTask {
  readonly batches: readonly PackedSamples[];
  readonly kvMetadata: Readonly<Record<string, string>>;
}

/** Longest stretch the reading holds the event loop before it lets other work run. */
const YIELD_EVERY_MS = 2;

/**
 * On the event loop: reads the batches, packing each as it comes. Reads the store's in-memory
 * tail answers resolve without a turn of the loop, so a day read from it held the loop ~25 ms in
 * one go (bench/loop-holds.ts, 2-core VM): it yields a turn every few ms.
 */
export async function datasetTask(
  batches: AsyncIterable<readonly Sample[]>,
  kvMetadata: Readonly<Record<string, string>>,
): Promise<{ task: DatasetTask; transfer: ArrayBuffer[] }> {
  const packed: PackedSamples[] = [];
  const slice = new LoopSlice(YIELD_EVERY_MS);
  for await (const b of batches) {
    packed.push(packSamples(b));
    await slice.pass();
  }
  return { task: { batches: packed, kvMetadata }, transfer: packed.flatMap(packedBuffers) };
}

/** In the worker: the same files the event loop would have written, both buffers moved back. */
export async function runDatasetTask(
  t: DatasetTask,
): Promise<{ value: DatasetFiles; transfer: ArrayBuffer[] }> {
  // Unpacked one batch at a time, as the writer appends them.
  function* batches(): Generator<Sample[]> {
    for (const b of t.batches) yield unpackSamples(b);
  }
  const files = await writeDatasetFilesFrom(batches(), t.kvMetadata);
  return { value: files, transfer: [files.parquet.buffer, files.csv.buffer] };
}
