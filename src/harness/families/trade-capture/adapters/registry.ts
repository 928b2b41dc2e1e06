import { bitqueryTrades } from './bitquery.ts';
import { codexTrades } from './codex.ts';
import type { TradeAdapter } from './contract.ts';
import { mobulaTrades } from './mobula.ts';

export const TRADE_ADAPTERS: ReadonlyMap<string, TradeAdapter> = new Map(
  [mobulaTrades, bitqueryTrades, codexTrades].map((a) => [a.provider, a]),
);
