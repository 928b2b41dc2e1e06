#!/usr/bin/env node
// Entry point: registers tsx so the TypeScript sources run as they are, then dispatches.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/cli.ts');
process.exitCode = await runCli(process.argv.slice(2));
