/**
 * The json-rpc demo's targets (issue 22), each measured on `npm run demo` as a user starts it:
 *
 *   npx tsx bench/rpc-demo.ts ready            time to "demo ready" from an empty DATA_DIR, then from the filled one
 *   npx tsx bench/rpc-demo.ts soak [minutes]   RSS of the service and of each anvil while running at DEMO_SPEED=60
 *   npx tsx bench/rpc-demo.ts cpu [minutes]    CPU of the live service at DEMO_SPEED=1 (harness and chains)
 *
 * Figures are for the machine it runs on; the note and README say which.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const mode = process.argv[2] ?? 'ready';
const minutes = Number(process.argv[3] ?? (mode === 'soak' ? 60 : 5));
const root = join(import.meta.dirname, '..');

interface Demo {
  readonly child: ChildProcess;
  readonly readyMs: Promise<number>;
}

function startDemo(dataDir: string, speed: number, port: number): Demo {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/demo/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      DEMO_SPEED: String(speed),
      PORT: String(port),
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const readyMs = new Promise<number>((resolve, reject) => {
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString();
      if (buf.includes('demo ready')) resolve(performance.now() - t0);
      if (buf.includes('cannot start')) reject(new Error(buf.slice(-500)));
      if (buf.length > 100_000) buf = buf.slice(-10_000);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`demo exited ${code}: ${buf.slice(-500)}`)));
  });
  return { child, readyMs };
}

async function stop(d: Demo): Promise<void> {
  const exited = new Promise((r) => d.child.once('exit', r));
  d.child.kill('SIGTERM');
  await exited;
}

/** Pids of a process's descendants (anvil runs under a small watchdog shell). */
function descendants(pid: number): number[] {
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(e), ...descendants(Number(e)));
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

const rssMb = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
};
const comm = (pid: number) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
/** utime + stime of a process, seconds. */
const cpuSeconds = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').slice(0, 10_000);
  const parts = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(parts[11]) + Number(parts[12])) / 100;
};

function snapshot(pid: number): { service: number; anvils: number[] } {
  const kids = descendants(pid);
  return {
    service: rssMb(pid),
    anvils: kids
      .filter((k) => {
        try {
          return comm(k) === 'anvil';
        } catch {
          return false;
        }
      })
      .map(rssMb),
  };
}

const dir = mkdtempSync(join(tmpdir(), 'citebench-rpc-demo-'));
try {
  if (mode === 'ready') {
    const first = startDemo(dir, 1, 18_201);
    const empty = await first.readyMs;
    await stop(first);
    const second = startDemo(dir, 1, 18_202);
    const filled = await second.readyMs;
    await stop(second);
    console.log(`demo ready from an empty DATA_DIR: ${(empty / 1000).toFixed(1)} s (target ≤ 60 s)`);
    console.log(`demo ready from the filled DATA_DIR: ${(filled / 1000).toFixed(1)} s (target ≤ 15 s)`);
  } else {
    const speed = mode === 'soak' ? 60 : 1;
    const d = startDemo(dir, speed, 18_203);
    const ready = await d.readyMs;
    const pid = d.child.pid as number;
    console.log(`ready in ${(ready / 1000).toFixed(1)} s; running ${minutes} min at DEMO_SPEED=${speed}`);
    const cpu0 = cpuSeconds(pid);
    const anvilCpu0 = descendants(pid).reduce((s, k) => s + (comm(k) === 'anvil' ? cpuSeconds(k) : 0), 0);
    const t0 = performance.now();
    for (let m = 1; m <= minutes; m++) {
      await new Promise((r) => setTimeout(r, 60_000));
      const s = snapshot(pid);
      console.log(
        `${m} min: service RSS ${s.service.toFixed(0)} MB; anvil RSS ${s.anvils.map((a) => a.toFixed(0)).join(', ')} MB`,
      );
    }
    const wall = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(pid) - cpu0;
    const anvilCpu =
      descendants(pid).reduce((s, k) => s + (comm(k) === 'anvil' ? cpuSeconds(k) : 0), 0) - anvilCpu0;
    const s = snapshot(pid);
    console.log(
      `after ${minutes} min at DEMO_SPEED=${speed}: service RSS ${s.service.toFixed(0)} MB (target ≤ 750), anvils ${s.anvils.map((a) => a.toFixed(0)).join(', ')} MB (target ≤ 150 each)`,
    );
    console.log(
      `CPU: service ${((cpu / wall) * 100).toFixed(1)}% of a core, anvils together ${((anvilCpu / wall) * 100).toFixed(1)}%`,
    );
    await stop(d);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
