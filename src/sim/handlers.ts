import type { Fault } from './faults.ts';
import type { SimListings } from './networks.ts';
import { hashString, hexFrom } from './prng.ts';
import type { TradeSources } from './trade-source.ts';
import {
  after,
  decodePos,
  encodePos,
  type Pos,
  type RowSource,
  TokenStream,
  type TradeModel,
  takePage,
} from './trades.ts';

export interface SimRequest {
  readonly provider: string;
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly body: unknown;
  /** This provider's base URL on the simulator (for absolute pagination links). */
  readonly base: string;
  readonly fault: Fault | null;
}

export interface SimResponse {
  readonly status: number;
  readonly body: unknown;
  /** Pre-serialized JSON (trade pages are built as text: JSON.stringify of 5000 objects is the hot path). */
  readonly text?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface SimData {
  readonly listings: SimListings;
  readonly model: TradeModel;
  /** Demo chains read for windows in their retained history; absent: the model answers everything. */
  readonly sources?: TradeSources;
}

function tradeRows(d: SimData, provider: string, chain: string, address: string, startMs: number): RowSource {
  return (
    d.sources?.rows(provider, chain, address, startMs) ?? new TokenStream(d.model, provider, chain, address)
  );
}

const PLATFORMS = ['Photon', 'Axiom'];
const EXCHANGES = Array.from({ length: 5 }, (_, i) => `0x${hexFrom(0x51ed + i, 40)}`);
const notFound: SimResponse = { status: 404, body: { message: 'Not Found' } };
const GT_PAGE = 100;
const MOBULA_CHAIN: Readonly<Record<string, string>> = {
  Solana: 'solana',
  Ethereum: 'ethereum',
  'BNB Smart Chain (BEP20)': 'bsc',
  Base: 'base',
  Stellar: 'stellar',
};
const CODEX_CHAIN: Readonly<Record<number, string>> = {
  1399811149: 'solana',
  1: 'ethereum',
  56: 'bsc',
  8453: 'base',
};
const BITQUERY_NET: Readonly<Record<string, string>> = { eth: 'ethereum', bsc: 'bsc', base: 'base' };

function gql(data: unknown): SimResponse {
  return { status: 200, body: { data } };
}
function gqlError(message: string): SimResponse {
  return { status: 200, body: { data: null, errors: [{ message }] } };
}

export function handle(req: SimRequest, d: SimData): SimResponse {
  const empty = req.fault?.kind === 'empty';
  const L = d.listings;
  const get = req.method === 'GET';
  switch (`${req.provider} ${req.method} ${req.path}`) {
    case 'geckoterminal GET /api/v2/networks':
      return geckoterminal(req, empty ? [] : L.geckoterminal);
    case 'coinpaprika GET /v1/contracts':
      return { status: 200, body: empty ? [] : L.coinpaprika };
    case 'coingecko GET /api/v3/asset_platforms':
      return { status: 200, body: empty ? [] : L.coingecko };
    case 'mobula GET /api/1/blockchains':
      return { status: 200, body: { data: empty ? [] : L.mobula } };
    case 'covalent GET /v1/chains/':
    case 'covalent GET /v1/chains':
      return {
        status: 200,
        body: {
          data: { updated_at: '2026-07-20T00:00:00Z', items: empty ? [] : L.covalent, pagination: null },
          error: false,
          error_message: null,
          error_code: null,
        },
      };
    case 'coinstats GET /wallet/blockchains':
      return { status: 200, body: empty ? [] : L.coinstats };
    case 'sim-dune GET /v1/evm/supported-chains':
      return { status: 200, body: { chains: empty ? [] : L.simDune } };
    case 'mobula GET /api/2/trades/filters':
      return mobulaTrades(req, d);
    case 'codex POST /graphql':
      return codex(req, d);
    case 'bitquery POST /graphql':
      return bitquery(req, d);
    default:
      return get || req.method === 'POST'
        ? notFound
        : { status: 405, body: { message: 'Method Not Allowed' } };
  }
}

/**
 * The chain a trades request reads (null for any other request), so the server can bring that
 * chain's index up to date before the synchronous handle() answers.
 */
export function tradeChainOf(req: SimRequest): string | null {
  const key = `${req.provider} ${req.method} ${req.path}`;
  if (key === 'mobula GET /api/2/trades/filters')
    return MOBULA_CHAIN[req.query.get('blockchain') ?? ''] ?? null;
  if (key !== 'codex POST /graphql' && key !== 'bitquery POST /graphql') return null;
  const body = (req.body ?? {}) as GraphqlBody;
  const query = typeof body.query === 'string' ? body.query : '';
  if (req.provider === 'codex') {
    const q = (body.variables?.query ?? {}) as { networkId?: unknown };
    return query.includes('getTokenEvents') ? (CODEX_CHAIN[Number(q.networkId)] ?? null) : null;
  }
  return bitqueryChain(query) ?? null;
}

function bitqueryChain(query: string): string | undefined {
  if (/\bSolana\s*\(/.test(query)) return 'solana';
  const net = /\bEVM\s*\([^)]*network:\s*(\w+)/.exec(query)?.[1];
  return net ? BITQUERY_NET[net] : undefined;
}

function geckoterminal(req: SimRequest, list: SimListings['geckoterminal']): SimResponse {
  const page = Math.max(1, Number(req.query.get('page') ?? '1') || 1);
  const last = Math.max(1, Math.ceil(list.length / GT_PAGE));
  const link = (p: number) => `${req.base}/api/v2/networks?page=${p}`;
  const data = list.slice((page - 1) * GT_PAGE, page * GT_PAGE).map((n) => ({
    id: n.id,
    type: 'network',
    attributes: { name: n.name, coingecko_asset_platform_id: n.platform },
  }));
  const loop = req.fault?.kind === 'cursor-loop';
  return {
    status: 200,
    body: {
      data,
      links: {
        first: link(1),
        prev: page > 1 ? link(page - 1) : null,
        next: loop ? link(1) : page < last && data.length > 0 ? link(page + 1) : null,
        last: link(last),
      },
    },
  };
}

function mobulaTrades(req: SimRequest, d: SimData): SimResponse {
  const q = req.query;
  const chain = MOBULA_CHAIN[q.get('blockchain') ?? ''];
  const address = q.get('tokenAddress');
  const from = Number(q.get('from'));
  const to = Number(q.get('to'));
  const limit = Number(q.get('limit') ?? '1000');
  if (!chain || !address)
    return { status: 400, body: { statusCode: 400, message: 'Unsupported blockchain or token' } };
  if (!Number.isFinite(from) || !Number.isFinite(to) || to < from) {
    return { status: 400, body: { statusCode: 400, message: 'from and to are required (ms)' } };
  }
  if (to - from > 3_600_000) {
    return { status: 400, body: { statusCode: 400, message: 'Timeframe cannot exceed 1 hour' } };
  }
  if (!Number.isInteger(limit) || limit < 1 || limit > 5000) {
    return { status: 400, body: { statusCode: 400, message: 'limit must be between 1 and 5000' } };
  }
  const cursor = q.get('cursor');
  let start: Pos | undefined;
  if (cursor) {
    const p = decodePos(cursor.slice(cursor.indexOf(':') + 1));
    if (!p) return { status: 400, body: { statusCode: 400, message: 'Invalid cursor' } };
    start = p; // inclusive: the boundary row is served again, as timestamp cursors do
  }
  const pagination = (count: number, nextCursor: string | null, hasMore: boolean) => ({
    count,
    nextCursor,
    hasMore,
    from,
    to,
  });
  if (req.fault?.kind === 'empty')
    return { status: 200, body: { data: [], pagination: pagination(0, null, false) } };
  const stream = tradeRows(d, 'mobula', chain, address, from);
  const { rows, more } = takePage(stream.rows(from, to + 1, start), limit);
  const lastRow = rows[rows.length - 1];
  let next = more && lastRow ? `${lastRow.ts}:${encodePos(lastRow.pos)}` : null;
  if (req.fault?.kind === 'cursor-loop' && lastRow)
    next = cursor ?? `${lastRow.ts}:${encodePos(lastRow.pos)}`;
  const blockchain = JSON.stringify(q.get('blockchain'));
  const tokenH = hashString(address);
  const parts: string[] = [];
  for (const r of rows) {
    const id = `${r.pos.b}-${r.pos.i}-${r.pos.leg}`;
    const usd = ((tokenH ^ r.pos.i) >>> 0) % 50_000;
    const platform = r.pos.i % 3 === 0 ? `{"name":"${PLATFORMS[r.pos.i % 9 === 0 ? 0 : 1]}"}` : 'null';
    parts.push(
      `{"id":"${id}","type":"${r.side}","baseTokenAmountUSD":${usd},"date":${r.ts},"blockchain":${blockchain},"transactionHash":"${r.hash}","marketAddress":"pool${r.pos.i % 7}","platform":${platform}}`,
    );
  }
  const pag = JSON.stringify(pagination(rows.length, next, next !== null));
  return { status: 200, body: null, text: `{"data":[${parts.join(',')}],"pagination":${pag}}` };
}

interface GraphqlBody {
  query?: unknown;
  variables?: Record<string, unknown>;
}

function codex(req: SimRequest, d: SimData): SimResponse {
  const body = (req.body ?? {}) as GraphqlBody;
  const query = typeof body.query === 'string' ? body.query : '';
  if (query.includes('getNetworks')) {
    const list = req.fault?.kind === 'empty' ? [] : d.listings.codex;
    return gql({ getNetworks: list });
  }
  if (!query.includes('getTokenEvents')) return gqlError('Cannot query field on type "Query"');
  const v = body.variables ?? {};
  const q = (v.query ?? {}) as {
    address?: unknown;
    networkId?: unknown;
    timestamp?: { from?: unknown; to?: unknown };
  };
  const chain = CODEX_CHAIN[Number(q.networkId)];
  const from = Number(q.timestamp?.from);
  const to = Number(q.timestamp?.to);
  if (!chain || typeof q.address !== 'string') return gqlError('Invalid networkId or address');
  if (!Number.isFinite(from) || !Number.isFinite(to))
    return gqlError('timestamp.from and timestamp.to are required');
  const limit = Math.min(200, Math.max(1, Number(v.limit ?? 25) || 25));
  let start: Pos | undefined;
  if (typeof v.cursor === 'string' && v.cursor) {
    const p = decodePos(Buffer.from(v.cursor, 'base64').toString('utf8'));
    if (!p) return gqlError('Invalid cursor');
    start = after(p);
  }
  if (req.fault?.kind === 'empty') return gql({ getTokenEvents: { items: [], cursor: null } });
  const stream = tradeRows(d, 'codex', chain, q.address, from * 1000);
  const { rows, more } = takePage(stream.rows(from * 1000, (to + 1) * 1000, start), limit);
  const lastRow = rows[rows.length - 1];
  let cursor = more && lastRow ? Buffer.from(encodePos(lastRow.pos)).toString('base64') : null;
  if (req.fault?.kind === 'cursor-loop' && lastRow)
    cursor = (v.cursor as string | null) || cursor || 'bG9vcA==';
  const items = rows.map(
    (r) =>
      `{"transactionHash":"${r.hash}","eventType":"Swap","eventDisplayType":"${r.side === 'buy' ? 'Buy' : 'Sell'}","exchangeAddress":"${EXCHANGES[r.pos.i % 5]}","timestamp":${r.ts / 1000}}`,
  );
  return {
    status: 200,
    body: null,
    text: `{"data":{"getTokenEvents":{"items":[${items.join(',')}],"cursor":${JSON.stringify(cursor)}}}}`,
  };
}

function bitquery(req: SimRequest, d: SimData): SimResponse {
  const body = (req.body ?? {}) as GraphqlBody;
  const query = typeof body.query === 'string' ? body.query : '';
  const v = body.variables ?? {};
  const chain = bitqueryChain(query);
  if (!chain) return gqlError('Unknown dataset or network');
  const solana = chain === 'solana';
  const cube = /\bDEXTradeByTokens\b/.test(query)
    ? 'DEXTradeByTokens'
    : /\bDEXTrades\b/.test(query)
      ? 'DEXTrades'
      : null;
  if (!cube) return gqlError('Cannot query field on type');
  // The reference's EVM query filtered `Trade.Buy.Currency`: only trades where the token was bought match.
  const buyOnly = /Buy\s*:\s*\{/.test(query);
  const limit = Math.min(10_000, Number(/count\s*:\s*(\d+)/.exec(query)?.[1] ?? 10_000));
  const token = typeof v.token === 'string' ? v.token : undefined;
  const since = typeof v.since === 'string' ? Date.parse(v.since) : Number.NaN;
  const end =
    typeof v.before === 'string'
      ? Date.parse(v.before)
      : typeof v.till === 'string'
        ? Date.parse(v.till) + 1000
        : Number.NaN;
  if (!token || Number.isNaN(since) || Number.isNaN(end))
    return gqlError('Variable "$token", "$since" or "$before" missing');
  const rows: string[] = [];
  if (req.fault?.kind !== 'empty') {
    const stream = tradeRows(d, 'bitquery', chain, token, since);
    const tx = solana ? 'Signature' : 'Hash';
    const dex = solana ? 'pump_amm' : 'uniswap_v3';
    for (const r of stream.rows(since, end)) {
      if (buyOnly && r.side !== 'buy') continue;
      if (rows.length >= limit) break;
      rows.push(`{"Transaction":{"${tx}":"${r.hash}"},"Trade":{"Dex":{"ProtocolName":"${dex}"}}}`);
    }
  }
  return {
    status: 200,
    body: null,
    text: `{"data":{"${solana ? 'Solana' : 'EVM'}":{"${cube}":[${rows.join(',')}]}}}`,
  };
}
