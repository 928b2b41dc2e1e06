import { startFromEnv } from '../main.ts';
import { buildDataset } from './dataset.ts';

/** `npm run demo`: the service with data on a machine without internet. */
await startFromEnv(async (service) => {
  const bounds = await service.store.timeBounds();
  if (bounds === null) {
    const samples = buildDataset({ seed: 42, days: 3, end: Date.now() });
    await service.store.append(samples);
    process.stderr.write(`demo: stored ${samples.length} samples covering 3 days\n`);
  }
  return undefined;
});
