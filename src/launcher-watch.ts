import { readFileSync } from 'node:fs';

function parentOf(pid: number): number | null {
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ppid = Number(after[1]);
    return Number.isInteger(ppid) ? ppid : null;
  } catch {
    return null;
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** The launchers that run us as a child: tsx's CLI (npm start runs `sh -c tsx …`) and npm/npx. */
const LAUNCHER = /(^|[\s/])(tsx|npm|npx)(\s|$)|\/tsx\/dist\/cli\.m?js|\/npm-cli\.js|\/npx-cli\.js/;
/** The shell npm runs a script or a package's bin in (`npx citebench harness`: npm → sh -c → us). */
const SHELL = /^(\S*\/)?(ba|da)?sh -c /;

/**
 * Calls `onGone` once when the launcher chain we were started by breaks. SIGTERM sent to `npm
 * start` alone reaches npm's `sh -c`, which dies without passing it on, leaving tsx and this
 * process orphaned and still serving; tsx itself relays signals but only when it receives them.
 * So when our parent is a launcher we watch it and its parent: either one going away means the
 * service was asked to stop. Under a shell, systemd or a container runtime nothing is watched, so
 * `nohup` and detached runs behave as before. Linux only (/proc); elsewhere a no-op.
 */
export function watchLauncher(onGone: (why: string) => void, intervalMs = 500): () => void {
  const parent = process.ppid;
  const grandparent = parentOf(parent);
  if (grandparent === null) return () => undefined;
  const launched =
    LAUNCHER.test(commandOf(parent)) ||
    // npx runs the bin through `sh -c`, which outlives npm: the shell is watched as the launcher.
    (SHELL.test(commandOf(parent)) && LAUNCHER.test(commandOf(grandparent)));
  if (!launched) return () => undefined;
  const timer = setInterval(() => {
    let why: string | undefined;
    if (process.ppid !== parent) why = 'launcher exited';
    else if (parentOf(parent) !== grandparent) why = "launcher's parent exited";
    if (why) {
      clearInterval(timer);
      onGone(why);
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
