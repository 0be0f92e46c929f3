// Content checks ("linters" in GS1's dictionary) other than dates: check digits and small rules.

/** GS1 CSET 82, in GS1's own order (the order matters for the GMN check character pair). */
export const CSET82 = '!"%&\'()*+,-./0123456789:;<=>?ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz';
/** GS1 CSET 39. */
export const CSET39 = '#-/0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** base64url alphabet plus '=' padding (the 'Z' type, used by AI 8030). */
export const CSET64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=';

/** The GS1 mod-10 check digit for a string of digits (the check digit itself excluded). */
export function mod10CheckDigit(body: string): number {
  let sum = 0;
  // Weights 3,1,3,1... counted from the rightmost digit of the body.
  for (let i = body.length - 1, w = 3; i >= 0; i--, w = 4 - w) sum += (body.charCodeAt(i) - 48) * w;
  return (10 - (sum % 10)) % 10;
}

/** Is the last digit of `digits` its correct GS1 mod-10 check digit? */
export function mod10Valid(digits: string): boolean {
  if (digits.length < 2) return false;
  return mod10CheckDigit(digits.slice(0, -1)) === digits.charCodeAt(digits.length - 1) - 48;
}

const CSET32 = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
const PRIMES = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83];

/**
 * GS1 check character pair (GMN, AI 8013/8014; GS1 General Specifications 7.9.5): each character
 * before the pair takes its CSET 82 index, weighted by primes taken from the right (the character
 * next to the pair gets the smallest, 2, its left neighbour 3, ...); the sum mod 1021 gives two
 * CSET 32 characters (sum div 32, sum mod 32).
 */
export function checkCharPair(body: string): string | null {
  if (body.length > PRIMES.length) return null;
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const v = CSET82.indexOf(body[i]);
    if (v < 0) return null;
    sum += v * PRIMES[body.length - 1 - i];
  }
  sum %= 1021;
  return CSET32[sum >> 5] + CSET32[sum & 31];
}

/** IBAN (ISO 13616) mod-97 check, with the basic shape: country letters, check digits, alnum. */
export function ibanValid(s: string): boolean {
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{1,30}$/.test(s)) return false;
  const moved = s.slice(4) + s.slice(0, 4);
  let rem = 0;
  for (const ch of moved) {
    const v = ch >= 'A' ? ch.charCodeAt(0) - 55 : ch.charCodeAt(0) - 48;
    rem = v >= 10 ? (rem * 100 + v) % 97 : (rem * 10 + v) % 97;
  }
  return rem === 1;
}

/** Outcome of a content check: null when fine, else the error code and a reason. */
export type CheckFault = { code: 'check_digit_mismatch' | 'invalid_value'; message: string } | null;

const invalid = (message: string): CheckFault => ({ code: 'invalid_value', message });

/**
 * Applies one non-date linter of the dictionary to one component. Linters we cannot check without
 * external data (GS1 Company Prefix allocation, ISO and UN/ECE code lists, coupon layouts) only
 * get the syntax checks of the character set and length, done by the caller; docs/gs1.md says so.
 */
export function runCheck(linter: string, v: string): CheckFault {
  switch (linter) {
    case 'csum':
      return mod10Valid(v)
        ? null
        : { code: 'check_digit_mismatch', message: `check digit ${v.slice(-1)} should be ${mod10CheckDigit(v.slice(0, -1))}` };
    case 'csumalpha': {
      if (v.length < 3) return invalid('too short to carry a check character pair');
      const want = checkCharPair(v.slice(0, -2));
      return want === v.slice(-2)
        ? null
        : { code: 'check_digit_mismatch', message: `check character pair ${v.slice(-2)} should be ${want ?? '(uncomputable)'}` };
    }
    case 'hasnondigit':
      return /\D/.test(v) ? null : invalid('must contain at least one non-digit character');
    case 'nozeroprefix':
      return v.length > 1 && v[0] === '0' ? invalid('must not start with 0') : null;
    case 'nonzero':
      return /^0+$/.test(v) ? invalid('must not be zero') : null;
    case 'zero':
      return v === '0' ? null : invalid('must be 0');
    case 'yesno':
      return v === '0' || v === '1' ? null : invalid('must be 0 (no) or 1 (yes)');
    case 'winding':
      return v === '0' || v === '1' || v === '9' ? null : invalid('winding direction must be 0, 1 or 9');
    case 'iso5218':
      return '0129'.includes(v) && v.length === 1 ? null : invalid('sex code must be 0, 1, 2 or 9 (ISO/IEC 5218)');
    case 'hyphen':
      return v === '-' ? null : invalid('sign must be "-"');
    case 'importeridx':
      return /^[-0-9A-Za-z_]$/.test(v) ? null : invalid('importer index must be a digit, letter, "-" or "_"');
    case 'iso3166alpha2':
      return /^[A-Z]{2}$/.test(v) ? null : invalid('country code must be two capital letters');
    case 'pcenc':
      return /%(?![0-9A-Fa-f]{2})/.test(v) ? invalid('bad percent-encoding') : null;
    case 'latitude':
      return Number(v) <= 1800000000 ? null : invalid('latitude out of range');
    case 'longitude':
      return Number(v) <= 3600000000 ? null : invalid('longitude out of range');
    case 'pieceoftotal': {
      const piece = Number(v.slice(0, 2));
      const total = Number(v.slice(2));
      return piece >= 1 && total >= 1 && piece <= total ? null : invalid(`piece ${v.slice(0, 2)} of total ${v.slice(2)} is impossible`);
    }
    case 'posinseqslash': {
      const m = /^([1-9])\/([1-9])$/.exec(v);
      return m && Number(m[1]) <= Number(m[2]) ? null : invalid('birth sequence must read n/m with 1 <= n <= m <= 9');
    }
    case 'iban':
      return ibanValid(v) ? null : invalid('not a valid IBAN');
    default:
      // gcppos1/2, iso3166, iso3166999, iso4217, packagetype, mediatype, couponcode, couponposoffer:
      // syntax only (see above).
      return null;
  }
}
