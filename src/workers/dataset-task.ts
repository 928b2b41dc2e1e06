import { LoopSlice } from '../concurrency/next-turn.ts';
import { type PackedSamples, packedBuffers, SamplesPacker, unpackSamples } from '../core/packed-samples.ts';
import type { Sample } from '../core/samples.ts';
import { type DatasetFiles, writeDatasetFilesFrom } from '../publication/dataset-files.ts';

/** A day's dataset files as a worker gets them: its samples packed in one set (buffers moved). */
export interface DatasetTask {
  readonly samples: PackedSamples;
  readonly kvMetadata: Readonly<Record<string, string>>;
}

/** Samples the worker turns back into objects at a time. */
const UNPACK_SLICE = 50_000;

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
  const packer = new SamplesPacker();
  const slice = new LoopSlice(YIELD_EVERY_MS);
  for await (const b of batches) {
    packer.add(b);
    await slice.pass();
  }
  const samples = packer.finish();
  return { task: { samples, kvMetadata }, transfer: packedBuffers(samples) };
}

/** In the worker: the same files the event loop would have written, both buffers moved back. */
export async function runDatasetTask(
  t: DatasetTask,
): Promise<{ value: DatasetFiles; transfer: ArrayBuffer[] }> {
  // Unpacked a slice at a time, as the writer appends them: a day of 1-minute samples as objects
  // at once would be ~100 MB.
  function* batches(): Generator<Sample[]> {
    const n = t.samples.t.length;
    for (let from = 0; from < n; from += UNPACK_SLICE)
      yield unpackSamples(t.samples, from, Math.min(n, from + UNPACK_SLICE));
  }
  const files = await writeDatasetFilesFrom(batches(), t.kvMetadata);
  return { value: files, transfer: [files.parquet.buffer, files.csv.buffer] };
}
