import { readFileSync } from 'node:fs';

const USAGE = `usage: citebench <command> [options]

commands:
  serve [--simulate]            run the service (harness and API in one process); --simulate
                                measures the simulated providers instead of the real APIs
  demo                          run the service with simulated providers and 3 days of backfilled data
  harness [start] [--simulate]  run the harness alone (no API; /metrics on HARNESS_METRICS_PORT),
                                the writer of a split deployment on STORE=prometheus (needs
                                BASE_URL there); --simulate runs the demo's harness (backfill,
                                simulated providers, demo clock); see \`citebench help harness\`
  harness run <benchmark> [--provider x] [--once] [--simulate]
                                run measurement cycles by hand and print a table
  export --from DATE --to DATE [--format parquet|csv] --out DIR
                                write the daily open dataset files of those days
  spec-hash <file>              print a spec's sha256 as published in provenance.specs
  help [command]                print this help, or a command's
  --version                     print the version

Configuration is read from the environment (PORT, DATA_DIR, BASE_URL, …; see README.md).
`;

const SERVE_USAGE = `usage: citebench serve [--simulate]

Runs the API and the harness in one process on PORT (default 8080), storing samples in DATA_DIR.
An empty DATA_DIR is measured once at start-up, then at each benchmark's cadence. Needs SOURCE_URL,
the public http(s) URL of the harness source ({family} becomes each benchmark's family).

  --simulate   measure the simulated providers (seed DEMO_SEED) instead of the real APIs, on the
               demo clock (DEMO_SPEED times the wall clock, kept in DATA_DIR); every number is
               marked as simulated. Also required to serve a DATA_DIR the demo filled.
               SOURCE_URL defaults to BASE_URL/methodology#harness.
`;

const DEMO_USAGE = `usage: citebench demo

Starts simulated providers (seed DEMO_SEED, default 42), backfills an empty DATA_DIR with DEMO_DAYS
(3) days of real harness cycles, by a plan a restart resumes, then keeps measuring on the demo clock
(DEMO_SPEED times the wall clock, kept in DATA_DIR). Every number it publishes is marked as
simulated demo data. No internet and no API keys needed.
`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version?: string;
  };
  return `citebench ${pkg.version ?? 'unknown'}\n`;
}

const wantsHelp = (a: readonly string[]) => a.includes('--help') || a.includes('-h');

/** Dispatches a command; returns the exit code (long-running commands never return). */
export async function runCli(args: readonly string[]): Promise<number> {
  const [cmd, ...rest] = args;
  switch (cmd) {
    case 'serve': {
      // --help prints and starts nothing (it used to start the service).
      if (wantsHelp(rest)) return print(SERVE_USAGE);
      const unknown = rest.filter((a) => a !== '--simulate');
      if (unknown.length > 0) return refuse(`serve: unknown option ${unknown[0]}`, SERVE_USAGE);
      const { startFromEnv, simulatedHarness } = await import('./main.ts');
      if (rest.includes('--simulate'))
        await startFromEnv(simulatedHarness, { simulated: true, command: 'serve' });
      else await startFromEnv();
      return new Promise<number>(() => undefined);
    }
    case 'demo':
      if (wantsHelp(rest)) return print(DEMO_USAGE);
      if (rest.length > 0) return refuse(`demo: unknown option ${rest[0]}`, DEMO_USAGE);
      await import('./demo/main.ts');
      return new Promise<number>(() => undefined);
    case 'harness': {
      // `harness` alone (or `harness start`, `harness --simulate`): the writer without the API
      // (split deployment), which refuses unknown options. `harness --help` is the daemon's usage (it
      // names `harness run`, whose own is `harness run --help`).
      if (rest[0] !== 'run') {
        if (wantsHelp(rest)) return print((await import('./cli/harness-usage.ts')).HARNESS_USAGE);
        const daemon = await import('./cli/harness-daemon.ts');
        return daemon.runHarnessDaemon(rest.slice(rest[0] === 'start' ? 1 : 0));
      }
      if (wantsHelp(rest)) return print((await import('./cli/harness-usage.ts')).HARNESS_RUN_USAGE);
      const mod = (await import('./cli/harness-cli.ts')) as { runHarnessCli(a: string[]): Promise<number> };
      return mod.runHarnessCli([...rest]);
    }
    case 'help': {
      const sub = rest[0];
      if (sub === 'serve') return print(SERVE_USAGE);
      if (sub === 'demo') return print(DEMO_USAGE);
      if (sub === 'harness') return runCli(['harness', '--help']);
      if (sub === 'export') return runCli(['export', '--help']);
      if (sub === 'spec-hash') return runCli(['spec-hash', '--help']);
      return print(USAGE);
    }
    case '-v':
    case '--version':
    case 'version':
      return print(version());
    case 'export': {
      if (wantsHelp(rest)) return print((await import('./cli/export-usage.ts')).EXPORT_USAGE);
      const { runExportCli } = await import('./cli/export-cli.ts');
      return runExportCli(rest);
    }
    case 'spec-hash': {
      const { runSpecHashCli } = await import('./cli/spec-hash-cli.ts');
      return runSpecHashCli(rest);
    }
    case undefined:
      process.stdout.write(USAGE);
      return 2;
    case '-h':
    case '--help':
      return print(USAGE);
    default:
      return refuse(`unknown command "${cmd}"`, USAGE);
  }
}

function print(text: string): number {
  process.stdout.write(text);
  return 0;
}

function refuse(message: string, usage: string): number {
  process.stderr.write(`${message}\n${usage}`);
  return 2;
}
