// GS1 dates: YYMMDD with the century rule, day 00, YYYYMMDD and times.

/**
 * GS1 General Specifications, 7.12 "Determination of century in dates": the two-digit year is
 * placed in the century that puts it no more than 49 years behind and no more than 50 years
 * ahead of the current year. With current year C (in UTC) and difference D = YY - (C mod 100):
 * D >= 51 -> previous century; D <= -50 -> next century; otherwise the current century.
 */
export function resolveYear(yy: number, now: Date): number {
  const current = now.getUTCFullYear();
  const century = current - (current % 100);
  const diff = yy - (current % 100);
  if (diff >= 51) return century - 100 + yy;
  if (diff <= -50) return century + 100 + yy;
  return century + yy;
}

export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

export function daysInMonth(y: number, m: number): number {
  return [31, isLeapYear(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/** Result of reading a date: the ISO form, or the reason it is impossible. */
export type DateRead = { iso: string } | { error: string };

/**
 * Reads YYMMDD (`allowDay00`: day 00 = last day of the month, as GS1 allows on most date AIs) or
 * YYYYMMDD. Digits only are assumed (the character set was checked before).
 */
export function readDate(digits: string, now: Date, allowDay00: boolean): DateRead {
  const long = digits.length === 8;
  const year = long ? Number(digits.slice(0, 4)) : resolveYear(Number(digits.slice(0, 2)), now);
  const month = Number(digits.slice(long ? 4 : 2, long ? 6 : 4));
  let day = Number(digits.slice(long ? 6 : 4));
  if (month < 1 || month > 12) return { error: `month ${pad(month, 2)} does not exist` };
  const dim = daysInMonth(year, month);
  if (day === 0) {
    if (!allowDay00) return { error: 'day 00 is not allowed here' };
    day = dim;
  }
  if (day > dim) return { error: `${year}-${pad(month, 2)} has no day ${pad(day, 2)}` };
  return { iso: `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}` };
}

/** Checks an hour (00-23), minute or second (00-59) field; returns an error text or null. */
export function checkTimeField(digits: string, kind: 'hh' | 'mi' | 'ss'): string | null {
  const v = Number(digits);
  const max = kind === 'hh' ? 23 : 59;
  return v > max ? `${kind === 'hh' ? 'hour' : kind === 'mi' ? 'minute' : 'second'} ${digits} is out of range` : null;
}
