import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type AnvilNode, anvilBinary, startAnvil } from '../../src/sim/chains/index.ts';
import { RpcClient } from '../../src/sim/chains/rpc.ts';
import { scaledBudget } from '../helpers/calibration.ts';

/**
 * A process's end is polled for, bounded only against a hang: quiet, an anvil is gone within
 * 0.1 s of its parent's death or its kill; the bound allows 100 times that.
 */
const GONE = { timeout: 10_000, interval: 50 };

/** Real anvil processes; each one started here (or by a child) is gone after afterAll. */
const nodes: AnvilNode[] = [];
const pids: number[] = [];
const dir = mkdtempSync(join(tmpdir(), 'sim-anvil-'));

afterAll(async () => {
  await Promise.allSettled(nodes.map((n) => n.stop()));
  for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // An unreaped zombie still answers kill(0), yet is no running node.
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function failure(p: Promise<AnvilNode>): Promise<string> {
  const node = await p.then(
    (n) => n,
    (e: Error) => e,
  );
  if (!(node instanceof Error)) {
    nodes.push(node);
    throw new Error('anvil started');
  }
  return node.message;
}

describe('startAnvil', () => {
  it('resolves the platform binary and serves the chain id on loopback', async () => {
    expect(anvilBinary()).toMatch(/@foundry-rs\/anvil-linux-amd64\/bin\/anvil$/);
    const node = await startAnvil({ chainId: 8453, genesisTimestampSec: 1_767_268_788 });
    nodes.push(node);
    expect(node.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const rpc = new RpcClient(node.url);
    expect(await rpc.call('eth_chainId')).toBe('0x2105');
    const genesis = await rpc.call<{ timestamp: string }>('eth_getBlockByNumber', ['0x0', false]);
    expect(Number(genesis.timestamp)).toBe(1_767_268_788);
    await node.stop();
    expect(alive(node.pid)).toBe(false);
  });

  it('leaves no anvil behind when the Node process that started it is SIGKILLed', async () => {
    const code = [
      `import { startAnvil } from ${JSON.stringify(pathToFileURL(join(process.cwd(), 'src/sim/chains/anvil.ts')).href)};`,
      'const n = await startAnvil({ chainId: 1 });',
      'console.log("pid " + n.pid);',
      'setInterval(() => {}, 1000);',
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const anvilPid = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (b: Buffer) => {
        out += b.toString();
        const m = /pid (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', () => reject(new Error(`child exited early: ${out}`)));
    });
    pids.push(anvilPid);
    expect(alive(anvilPid)).toBe(true);
    child.kill('SIGKILL');
    await expect.poll(() => alive(anvilPid), GONE).toBe(false);
  });

  it('fails in one line, bounded in time, leaving no process', async () => {
    // A state path anvil could not dump to (it would only fail on exit): refused up front.
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const noDir = await failure(startAnvil({ chainId: 1, stateFile: join(file, 'sub', 'state.json') }));
    expect(noDir).toMatch(/^anvil: cannot create the state directory .*a-file\/sub \(ENOTDIR\)$/);

    const corrupt = join(dir, 'corrupt.json');
    writeFileSync(corrupt, '{"block":');
    const bad = await failure(startAnvil({ chainId: 1, stateFile: corrupt }));
    expect(bad).toMatch(/^anvil \(chain 1\) exited with code 2: error: invalid value .*corrupt\.json/);
    expect(bad).not.toContain('\n');

    const missing = await failure(startAnvil({ chainId: 1, binary: join(dir, 'no-such-anvil') }));
    expect(missing).toMatch(/^anvil \(chain 1\) exited with code 127: .*no-such-anvil.*not found$/);

    // Never prints "Listening on": the bounded wait kills it and says so.
    const silent = join(dir, 'silent-anvil');
    const pidFile = join(dir, 'silent.pid');
    writeFileSync(silent, `#!/bin/sh\necho $$ > ${pidFile}\nexec sleep 30\n`);
    chmodSync(silent, 0o755);
    const STARTUP_MS = 500;
    const started = performance.now();
    const hung = await failure(startAnvil({ chainId: 1, binary: silent, startupTimeoutMs: STARTUP_MS }));
    expect(hung).toBe(`anvil (chain 1) did not start within ${STARTUP_MS} ms`);
    // The bound plus a margin: quiet, the failure comes 3–10 ms after it (the kill and the exit);
    // the margin allows 500 ms × the calibration's factor, where the silent script lives 30 s.
    expect(performance.now() - started).toBeLessThan(STARTUP_MS + scaledBudget(500));
    const pid = Number(readFileSync(pidFile, 'utf8'));
    pids.push(pid);
    await expect.poll(() => alive(pid), GONE).toBe(false);
  });
});
