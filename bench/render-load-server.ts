/**
 * Child process for bench/stat-while-rendering.ts: the real service (images and MCP wired) on an
 * in-memory store. With `churn`, it writes a new sample for both benchmarks every second, so every
 * view is invalidated and both OG images re-render in the worker while the load runs.
 */
import { testConfig } from '../src/config.ts';
import { buildDataset } from '../src/demo/dataset.ts';
import { METRICS } from '../src/harness/families/metric-names.ts';
import { createLogger } from '../src/log.ts';
import { defaultRoutes } from '../src/routes.ts';
import { createService } from '../src/service.ts';

const churn = process.argv.includes('churn');
const svc = await createService({
  config: testConfig({ port: 0, logLevel: 'silent' }),
  log: createLogger('silent'),
  inMemory: true,
  routes: defaultRoutes,
});
await svc.store.append(buildDataset({ seed: 5, days: 3, end: Date.now() }));
const port = await svc.listen();
if (churn) {
  let i = 0;
  setInterval(() => {
    i++;
    const t = Date.now();
    void svc.store.append([
      { metric: METRICS.networksSupported, labels: { provider: 'codex' }, t, v: 400 + (i % 50) },
      {
        metric: METRICS.tokenTradeCapturePct,
        labels: { provider: 'codex', chain: 'solana', token: 'BONK' },
        t,
        v: 90 + (i % 10),
      },
    ]);
  }, 1000);
}
process.stdout.write(`LISTENING ${port}\n`);
process.on('SIGTERM', () => void svc.close().then(() => process.exit(0)));
