import { codexNetworks } from './codex.ts';
import { coingeckoNetworks } from './coingecko.ts';
import { coinpaprikaNetworks } from './coinpaprika.ts';
import { coinstatsNetworks } from './coinstats.ts';
import type { NetworkAdapter } from './contract.ts';
import { covalentNetworks } from './covalent.ts';
import { geckoterminalNetworks } from './geckoterminal.ts';
import { mobulaNetworks } from './mobula.ts';
import { simDuneNetworks } from './sim-dune.ts';

export const NETWORK_ADAPTERS: ReadonlyMap<string, NetworkAdapter> = new Map(
  [
    geckoterminalNetworks,
    codexNetworks,
    mobulaNetworks,
    coinpaprikaNetworks,
    covalentNetworks,
    coinstatsNetworks,
    simDuneNetworks,
    coingeckoNetworks,
  ].map((a) => [a.provider, a]),
);
