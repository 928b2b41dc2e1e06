import childProcess, { ChildProcess } from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { vi } from 'vitest';

/**
 * The unit layer runs in this process only: no child process of any kind (services, anvil,
 * engines, Chromium, git, python). A test that needs one belongs in test/e2e/, and this makes
 * it fail at once, naming what it tried to start, rather than slowing the unit run down.
 */
function refuse(what: string): never {
  throw new Error(`a unit test may not start a child process (${what}); move the test to test/e2e/`);
}

// Every spawn, exec and fork goes through ChildProcess#spawn (an internal method, so untyped).
Object.defineProperty(ChildProcess.prototype, 'spawn', {
  value: (opts: { file?: string } | undefined) => refuse(String(opts?.file ?? 'spawn')),
  configurable: true,
  writable: true,
});
for (const name of ['spawnSync', 'execSync', 'execFileSync'] as const) {
  Object.defineProperty(childProcess, name, {
    value: (file: string) => refuse(`${name} ${file}`),
    configurable: true,
    writable: true,
  });
}
syncBuiltinESMExports();

// The build's revision is otherwise read with `git rev-parse` (src/build-info.ts).
process.env.CITEBENCH_REVISION ??= '0000000000000000000000000000000000000000';

// Unit files share a worker process (isolate: false, vitest.config.ts) so the packages they load
// (DuckDB, Hono, satori, the MCP SDK) load once per worker, not once per file. Our own modules are
// fresh for every file, so no process-wide registry (the provider catalogue, the families) carries
// one file's state into the next.
vi.resetModules();
