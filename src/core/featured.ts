import type { Featured, FeaturedCard, Stat } from './api-schemas.ts';
import { round6 } from './stats.ts';

const LIMIT = 6;

function card(now: Stat, then: Stat | undefined): FeaturedCard {
  let change24h: FeaturedCard['change24h'] = null;
  if (now.value !== null && then?.value !== null && then?.value !== undefined) {
    const from = then.value;
    const to = now.value;
    change24h = { from, to, pct: from === 0 ? null : round6(((to - from) / Math.abs(from)) * 100) };
  }
  return {
    slug: now.slug,
    title: now.title,
    category: now.category,
    metric: now.metric,
    unit: now.unit,
    value: now.value,
    leader: now.leader ? { name: now.leader.name, slug: now.leader.slug } : null,
    url: now.pageUrl,
    asOf: now.asOf,
    change24h,
  };
}

function movement(c: FeaturedCard): number {
  if (!c.change24h) return -1;
  if (c.change24h.pct !== null) return Math.abs(c.change24h.pct);
  return c.change24h.to === c.change24h.from ? 0 : Number.POSITIVE_INFINITY;
}

/**
 * Computed from the data, never hard-coded: `featured` = live benchmarks with a leader, by number;
 * `trending` = those whose leader value moved most against the view 24 h earlier.
 */
export function buildFeatured(now: readonly Stat[], dayAgo: ReadonlyMap<string, Stat>): Featured {
  const cards = now.filter((s) => s.status !== 'draft' && s.leader).map((s) => card(s, dayAgo.get(s.slug)));
  // A benchmark whose leader value did not move is not trending: a 0% mover is never listed.
  const trending = cards
    .filter((c) => c.change24h !== null && c.change24h.from !== c.change24h.to)
    .sort((x, y) => movement(y) - movement(x) || (x.slug < y.slug ? -1 : 1))
    .slice(0, LIMIT);
  // A card alone on a widget must say its data is simulated, as the Stats it comes from do.
  const simulated = now.some((s) => s.simulated === true);
  return { featured: cards.slice(0, LIMIT), trending, ...(simulated ? { simulated: true as const } : {}) };
}
