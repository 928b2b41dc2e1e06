import type { z } from 'zod';
import type { ChainHint } from '../../../chains/resolve.ts';
import { fail, ok, type Result } from '../../../types.ts';

/** One listing entry as its adapter read it; chain id and testnet rules are applied later, once for all. */
export interface ListingEntry {
  /** The provider's own id for the entry, as listed (shown in the audit). */
  readonly rawId: string;
  readonly name: string;
  readonly hints: readonly ChainHint[];
  /** The provider's testnet flag, when its listing has one. */
  readonly testnet?: boolean;
}

/** Bounded label values for listing_entries_dropped_total{reason}. */
export type DropReason = 'missing_id' | 'bad_id' | 'bad_entry';

export interface DroppedEntry {
  readonly rawId: string;
  readonly name: string;
  readonly reason: DropReason;
  /** The first validation issue, for the log and the audit. */
  readonly detail: string;
}

export interface Listing {
  readonly entries: readonly ListingEntry[];
  readonly dropped: readonly DroppedEntry[];
}

/** What a dropped entry can still show of itself: its id field and name, when they are readable. */
function describe(item: unknown, idFields: readonly string[]): { rawId: string; name: string } {
  if (typeof item === 'string' || typeof item === 'number') return { rawId: String(item), name: '' };
  if (typeof item !== 'object' || item === null) return { rawId: '', name: '' };
  const rec = item as Record<string, unknown>;
  const id = idFields.map((f) => rec[f]).find((v) => typeof v === 'string' || typeof v === 'number');
  return { rawId: id === undefined ? '' : String(id), name: typeof rec.name === 'string' ? rec.name : '' };
}

/**
 * Validates a listing entry by entry: a bad entry is dropped and reported, never a reason to throw
 * the whole listing away (one null id used to keep a provider's count at an old value indefinitely).
 * `idFields` name the fields that identify an entry, so their failures read `missing_id`/`bad_id`;
 * none means the entry itself is the id.
 */
export function parseEntries<S extends z.ZodType>(
  items: readonly unknown[],
  schema: S,
  idFields: readonly string[],
  toEntry: (entry: z.output<S>) => ListingEntry,
): Listing {
  const entries: ListingEntry[] = [];
  const dropped: DroppedEntry[] = [];
  for (const [index, item] of items.entries()) {
    const r = schema.safeParse(item);
    if (r.success) {
      entries.push(toEntry(r.data));
      continue;
    }
    const issue = r.error.issues[0];
    const field = issue?.path[0];
    const value =
      typeof item === 'object' && item !== null && typeof field === 'string'
        ? (item as Record<string, unknown>)[field]
        : item;
    // No id fields: the entry is its own id (CoinPaprika lists bare platform ids).
    const onId =
      field === undefined ? idFields.length === 0 : typeof field === 'string' && idFields.includes(field);
    const reason: DropReason = onId
      ? value === null || value === undefined || value === ''
        ? 'missing_id'
        : 'bad_id'
      : 'bad_entry';
    const at = [index, ...(issue?.path ?? [])].join('.');
    dropped.push({ ...describe(item, idFields), reason, detail: `${at}: ${issue?.message ?? 'invalid'}` });
  }
  return { entries, dropped };
}

/** Concatenates pages of one listing. */
export function mergeListings(parts: readonly Listing[]): Listing {
  return { entries: parts.flatMap((p) => p.entries), dropped: parts.flatMap((p) => p.dropped) };
}

/**
 * The listing as a whole fails only when more than half its entries are bad: then the response, not
 * an entry, is broken, and the last good count should stand.
 */
export function checkListing(listing: Listing, what: string): Result<Listing> {
  const total = listing.entries.length + listing.dropped.length;
  if (listing.dropped.length * 2 > total) {
    const first = listing.dropped[0];
    return fail(
      'parse',
      `${what}: ${listing.dropped.length} of ${total} entries are invalid${first ? ` (first: ${first.detail})` : ''}`,
    );
  }
  return ok(listing);
}
