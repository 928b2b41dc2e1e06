import { Worker } from 'node:worker_threads';

/**
 * How a worker gets loaded. From compiled .js, the entry's .js file is started directly. From
 * TypeScript sources (tsx, vitest) Node 20 cannot run a .ts entry, workers do not inherit the
 * parent's module hooks, and `--import tsx` in a worker's execArgv is not honoured on Node 20. So
 * the worker starts from a tiny eval'd bootstrap that calls tsx's ESM API `register()` inside the
 * worker thread and then imports the .ts entry through that loader. The bootstrap uses only
 * dynamic import(): eval'd code runs as CommonJS, or as ESM if the parent passed
 * --input-type=module, and works as either.
 */
const TSX_BOOTSTRAP = `
import('node:worker_threads')
  .then(({ workerData }) => import(workerData.tsxEsmApi).then((api) => { api.register(); return import(workerData.entry); }));
`;

/**
 * Starts the worker whose entry is `name` (without extension) beside the module at `from`
 * (pass `import.meta.url`): name.js when running compiled, name.ts through tsx otherwise. The
 * entry reads `data` as `workerData.data`.
 */
export function startTsWorker(from: string, name: string, data?: unknown): Worker {
  const self = new URL(from);
  if (!self.pathname.endsWith('.ts'))
    return new Worker(new URL(`./${name}.js`, self), { workerData: { data } });
  const entry = new URL(`./${name}.ts`, self).href;
  const tsxEsmApi = import.meta.resolve('tsx/esm/api');
  return new Worker(TSX_BOOTSTRAP, { eval: true, workerData: { tsxEsmApi, entry, data } });
}
