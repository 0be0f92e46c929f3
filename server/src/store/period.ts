// Monthly quota periods anchored to the customer's signup day (SPEC 3.2, 8).
//
// The period starts on the signup day-of-month each month. A signup on the 29th-31st resets on
// the last day of shorter months (a 31 Jan signup resets on 28/29 Feb, then 31 Mar), so the
// anchor is always the signup day clamped to the month's length, never a drifting date.
// All dates are UTC calendar dates written YYYY-MM-DD.

export interface Period {
  /** first day of the current period (also the store's period key) */
  start: string;
  /** the next reset day: `resets_on` of SPEC 2.3 */
  resetsOn: string;
}

function daysInMonth(year: number, month0: number): number {
  return new Date(Date.UTC(year, month0 + 1, 0)).getUTCDate();
}

function fmt(year: number, month0: number, day: number): string {
  const d = new Date(Date.UTC(year, month0, day));
  return d.toISOString().slice(0, 10);
}

/** The anchored boundary in a given month: the signup day, clamped to the month's last day. */
function boundary(year: number, month0: number, anchorDay: number): { y: number; m: number; d: number } {
  const y = year + Math.floor(month0 / 12);
  const m = ((month0 % 12) + 12) % 12;
  return { y, m, d: Math.min(anchorDay, daysInMonth(y, m)) };
}

export function parseDate(s: string): { y: number; m: number; d: number } {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) throw new Error(`not a date (YYYY-MM-DD): ${s}`);
  const y = Number(m[1]), mo = Number(m[2]) - 1, d = Number(m[3]);
  const dt = new Date(Date.UTC(y, mo, d));
  if (dt.getUTCFullYear() !== y || dt.getUTCMonth() !== mo || dt.getUTCDate() !== d) {
    throw new Error(`not a calendar date: ${s}`);
  }
  return { y, m: mo, d };
}

export function dayOf(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 10);
}

export function currentPeriod(signup: string, nowMs: number): Period {
  const s = parseDate(signup);
  const now = new Date(nowMs);
  const ny = now.getUTCFullYear(), nm = now.getUTCMonth(), nd = now.getUTCDate();
  const today = fmt(ny, nm, nd);
  if (today < signup) {
    // A clock behind the signup date (or a future signup): the first period starts at signup.
    const next = boundary(s.y, s.m + 1, s.d);
    return { start: signup, resetsOn: fmt(next.y, next.m, next.d) };
  }
  let b = boundary(ny, nm, s.d);
  let startMonth = nm;
  if (nd < b.d) {
    startMonth = nm - 1;
    b = boundary(ny, startMonth, s.d);
  }
  const next = boundary(ny, startMonth + 1, s.d);
  return { start: fmt(b.y, b.m, b.d), resetsOn: fmt(next.y, next.m, next.d) };
}
