const USAGE = `usage: citebench <command>

commands:
  serve                         run the service (harness and API in one process)
  demo                          run the service with simulated providers and backfilled data
  harness run <benchmark> [--provider x] [--once] [--simulate]
                                run measurement cycles by hand and print a table
`;

/** Dispatches a command; returns the exit code (long-running commands never return). */
export async function runCli(args: readonly string[]): Promise<number> {
  const [cmd, ...rest] = args;
  switch (cmd) {
    case 'serve': {
      const { startFromEnv } = await import('./main.ts');
      await startFromEnv();
      return new Promise<number>(() => undefined);
    }
    case 'demo':
      await import('./demo/main.ts');
      return new Promise<number>(() => undefined);
    case 'harness': {
      const mod = (await import('./cli/harness-cli.ts')) as { runHarnessCli(a: string[]): Promise<number> };
      return mod.runHarnessCli([...rest]);
    }
    case undefined:
    case '-h':
    case '--help':
      process.stdout.write(USAGE);
      return cmd === undefined ? 2 : 0;
    default:
      process.stderr.write(`unknown command "${cmd}"\n${USAGE}`);
      return 2;
  }
}
