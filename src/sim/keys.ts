/** The keys the simulator accepts; point the harness at the simulator with these. */
export const SIM_API_KEYS: Readonly<Record<string, string>> = {
  codex: 'sim-codex-key',
  mobula: 'sim-mobula-key',
  covalent: 'cqt_sim_covalent_key',
  coinstats: 'sim-coinstats-key',
  'sim-dune': 'sim-dune-key',
  bitquery: 'ory_at_sim_bitquery_token',
};

/** How each provider wants its key, and the body it answers a missing or wrong key with. */
export function checkAuth(
  provider: string,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): { ok: true } | { ok: false; status: number; body: unknown } {
  const key = SIM_API_KEYS[provider];
  const h = (n: string) => {
    const v = headers[n];
    return Array.isArray(v) ? v[0] : v;
  };
  switch (provider) {
    case 'codex':
      return h('authorization') === key
        ? { ok: true }
        : {
            ok: false,
            status: 401,
            body: {
              data: null,
              errors: [{ message: 'Unauthorized', extensions: { code: 'UNAUTHENTICATED' } }],
            },
          };
    case 'mobula':
      return h('authorization') === key
        ? { ok: true }
        : {
            ok: false,
            status: 401,
            body: { statusCode: 401, message: 'Unauthorized: invalid or missing API key' },
          };
    case 'covalent':
      return h('authorization') === `Bearer ${key}`
        ? { ok: true }
        : {
            ok: false,
            status: 401,
            body: {
              data: null,
              error: true,
              error_message:
                'Invalid or missing API key. Sign up at https://goldrush.dev/platform/ to get a free key.',
              error_code: 401,
            },
          };
    case 'coinstats':
      return h('x-api-key') === key
        ? { ok: true }
        : { ok: false, status: 401, body: { statusCode: 401, message: 'Unauthorized' } };
    case 'bitquery':
      return h('authorization') === `Bearer ${key}`
        ? { ok: true }
        : {
            ok: false,
            status: 401,
            body: { errors: [{ message: 'Unauthorized: invalid or expired token' }] },
          };
    case 'sim-dune': {
      // The key is optional, but a wrong one is refused.
      const k = h('x-sim-api-key');
      return k === undefined || k === key
        ? { ok: true }
        : { ok: false, status: 401, body: { error: 'Invalid API Key' } };
    }
    default:
      return { ok: true };
  }
}

/** Error bodies in each provider's envelope. */
export function errorBody(provider: string, status: number, message: string): unknown {
  switch (provider) {
    case 'covalent':
      return { data: null, error: true, error_message: message, error_code: status };
    case 'codex':
    case 'bitquery':
      return { data: null, errors: [{ message }] };
    case 'geckoterminal':
      return { errors: [{ status: String(status), title: message }] };
    case 'coingecko':
      return { status: { error_code: status, error_message: message } };
    default:
      return { statusCode: status, message };
  }
}
