import type { Config } from '../config.ts';

export type OriginVerdict = { ok: true } | { ok: false; reason: string };

function originOf(s: string): string {
  try {
    return new URL(s).origin.toLowerCase();
  } catch {
    return s.trim().toLowerCase();
  }
}

function loopback(port: number): { hosts: string[]; origins: string[] } {
  const hosts = [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`];
  return { hosts, origins: hosts.map((h) => `http://${h}`) };
}

/**
 * DNS-rebinding protection: a browser tricked into calling us under a foreign name sends that
 * name in Host (and Origin). Allowed: the public base URL, loopback names on the configured port
 * or on the port the request actually arrived on, and the configured extras.
 */
export function createOriginPolicy(
  config: Pick<Config, 'baseUrl' | 'port' | 'mcpAllowedHosts' | 'mcpAllowedOrigins'>,
) {
  const base = new URL(config.baseUrl);
  const lb = loopback(config.port);
  const hosts = new Set([
    base.host.toLowerCase(),
    ...lb.hosts,
    ...config.mcpAllowedHosts.map((h) => h.toLowerCase()),
  ]);
  const origins = new Set([
    base.origin.toLowerCase(),
    ...lb.origins,
    ...config.mcpAllowedOrigins.map(originOf),
  ]);

  // One server listens on one or two ports; remember their loopback names.
  const byPort = new Map<number, { hosts: string[]; origins: string[] }>();
  const local = (port: number) => {
    let lp = byPort.get(port);
    if (!lp) {
      lp = loopback(port);
      if (byPort.size < 16) byPort.set(port, lp);
    }
    return lp;
  };
  const hostOk = (host: string, localPort: number | undefined): boolean =>
    hosts.has(host) || (localPort !== undefined && local(localPort).hosts.includes(host));
  const originOk = (origin: string, localPort: number | undefined): boolean =>
    origins.has(origin) || (localPort !== undefined && local(localPort).origins.includes(origin));

  return {
    check(host: string | undefined, origin: string | undefined, localPort?: number): OriginVerdict {
      const h = host?.trim().toLowerCase();
      if (!h) return { ok: false, reason: 'missing Host header' };
      if (!hostOk(h, localPort)) return { ok: false, reason: `Host "${host}" is not allowed` };
      if (origin !== undefined && !originOk(originOf(origin), localPort)) {
        return { ok: false, reason: `Origin "${origin}" is not allowed` };
      }
      return { ok: true };
    },
    /** For CORS: echo the Origin only when it passed the check. */
    originAllowed(origin: string, localPort?: number): boolean {
      return originOk(originOf(origin), localPort);
    },
  };
}

export type OriginPolicy = ReturnType<typeof createOriginPolicy>;
