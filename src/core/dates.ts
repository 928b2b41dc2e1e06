export const DAY_MS = 86_400_000;

export type DayParse = { ok: true; start: number; day: string } | { ok: false; message: string };

/** Strict YYYY-MM-DD that must name a real calendar day (2026-02-30 is rejected, not rolled over). */
export function parseDay(s: string): DayParse {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return { ok: false, message: 'date must be an ISO 8601 calendar date in the form YYYY-MM-DD' };
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // Date.UTC maps years 0–99 to 1900–1999; setUTCFullYear takes the year as given (0000 is a real
  // year, so 0000-01-01 is "before the first snapshot", not malformed).
  const back = new Date(0);
  back.setUTCFullYear(y, mo - 1, d);
  const t = back.getTime();
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) {
    return { ok: false, message: `${s} is not a calendar date` };
  }
  return { ok: true, start: t, day: s };
}

export function dayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** The evaluation time of a day snapshot: the last millisecond of the UTC day. */
export function dayEnd(start: number): number {
  return start + DAY_MS - 1;
}
