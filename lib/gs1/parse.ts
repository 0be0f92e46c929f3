// Parser: payload -> SPEC 2.2 `gs1` object. Never throws on any input: every fault becomes an
// entry of `errors`, and elements read before a fault are kept.
import { CSET39, CSET64, CSET82, runCheck } from './checks';
import { checkTimeField, readDate } from './dates';
import { aiDef, aiMatches, AI_TABLE, matchAi, probableAiLength } from './table';
import type { AiDef, Charset, Gs1Element, Gs1Error, Gs1ErrorCode, Gs1Result, ParseGs1Options } from './types';

/** ASCII group separator: FNC1 as transmitted between variable-length elements. */
export const GS = '\u001d';
/** Suffix SPEC 2.2 rule 2 puts after a value whose check digit is wrong. */
export const MISMATCH_SUFFIX = ' (check digit mismatch)';
export const DEFAULT_RESOLVER = 'https://id.gs1.org';

/**
 * AIM symbology identifiers that announce GS1 data: DotCode ]J1, GS1 DataMatrix ]d2, GS1 QR ]Q3,
 * GS1-128 ]C1, GS1 DataBar / composite ]e0.
 */
export const GS1_SYMBOLOGY_IDS: readonly string[] = [']J1', ']d2', ']Q3', ']C1', ']e0'];

/** Codes that mean the payload is not (or not entirely) a well-formed element string. */
const SYNTAX_CODES: ReadonlySet<Gs1ErrorCode> = new Set<Gs1ErrorCode>([
  'empty', 'unknown_ai', 'truncated', 'invalid_length', 'missing_separator', 'invalid_character', 'bracket_syntax',
]);

const CHARSETS: Record<Charset, { chars: string; name: string }> = {
  N: { chars: '0123456789', name: 'digits only' },
  X: { chars: CSET82, name: 'GS1 character set 82' },
  Y: { chars: CSET39, name: 'GS1 character set 39' },
  Z: { chars: CSET64, name: 'base64url' },
};

const DATE_LINTERS = new Set(['yymmd0', 'yymmdd', 'yyyymmdd']);
const TIME_LINTERS = new Set(['hhmi', 'hh', 'mi', 'ss']);

interface ParsedElement {
  def: AiDef;
  raw: string;
  position: number;
  mismatch: boolean;
  formatted?: string;
  hasErrors: boolean;
}

interface Ctx {
  now: Date;
  errors: Gs1Error[];
  elements: ParsedElement[];
}

const tag = (def: AiDef) => `(${def.ai}) ${def.label}`;

function describeChar(ch: string): string {
  const code = ch.charCodeAt(0);
  return code < 0x20 || code === 0x7f ? `control character 0x${code.toString(16).padStart(2, '0')}` : `"${ch}"`;
}

/** Digits with `d` implied decimals -> "12.50"; leading zeros of the integer part removed. */
export function formatDecimal(digits: string, d: number): string {
  const padded = digits.padStart(d + 1, '0');
  const int = padded.slice(0, padded.length - d).replace(/^0+(?=\d)/, '');
  return d > 0 ? `${int}.${padded.slice(padded.length - d)}` : int;
}

/** Decimal-point position of an AI whose last digit is the number of implied decimals. */
function decimalsOf(ai: string): number | null {
  if (ai.length !== 4) return null;
  const p2 = Number(ai.slice(0, 2));
  const p3 = ai.slice(0, 3);
  if ((p2 >= 31 && p2 <= 36) || ['390', '391', '392', '393', '394', '395'].includes(p3)) return Number(ai[3]);
  return null;
}

/** Formatted form of a measure, amount or temperature (null when the AI has none). */
function formatNumeric(def: AiDef, raw: string): string | null {
  const ai = def.ai;
  if (ai >= '4330' && ai <= '4333') {
    // Temperatures: six digits, two implied decimals, an optional trailing '-' for below zero.
    const neg = raw.length === 7;
    return (neg ? '-' : '') + formatDecimal(raw.slice(0, 6), 2);
  }
  const d = decimalsOf(ai);
  if (d === null) return null;
  if (ai.startsWith('391') || ai.startsWith('393')) {
    // ISO 4217 numeric currency code, then the amount.
    return `${raw.slice(0, 3)} ${formatDecimal(raw.slice(3), d)}`;
  }
  return formatDecimal(raw, d);
}

/**
 * Checks a value against its AI's components (lengths, character sets, linters) and computes the
 * formatted form. Errors go to ctx; returns the element to keep.
 */
function checkValue(ctx: Ctx, def: AiDef, raw: string, position: number, offsets?: number[]): ParsedElement {
  const el: ParsedElement = { def, raw, position, mismatch: false, hasErrors: false };
  // offsets[i]: where raw[i] sits in the text (the bracketed form's "\(" escapes shift them).
  const where = (at: number) => (offsets ? offsets[Math.min(at, offsets.length - 1)] : position + at);
  const fail = (code: Gs1ErrorCode, message: string, at: number) => {
    ctx.errors.push({ ai: def.ai, code, message: `${tag(def)}: ${message}`, position: where(at) });
    el.hasErrors = true;
  };
  const dates: string[] = [];
  let time = '';
  let i = 0;
  let structuralOk = true;
  for (let p = 0; p < def.parts.length; p++) {
    const [cset, min, max, optional, linters] = def.parts[p];
    const left = raw.length - i;
    if (left === 0 && optional) break;
    const take = min === max ? max : Math.min(left, max);
    if (left < min) {
      fail('invalid_length', `value "${raw}" is too short (needs ${def.fixedLength ?? `${def.minLength} to ${def.maxLength}`} characters)`, i);
      structuralOk = false;
      break;
    }
    const comp = raw.slice(i, i + take);
    const { chars, name } = CHARSETS[cset];
    let bad = -1;
    for (let k = 0; k < comp.length; k++) if (!chars.includes(comp[k])) { bad = k; break; }
    if (bad >= 0) {
      fail('invalid_character', `${describeChar(comp[bad])} is not allowed (${name})`, i + bad);
      structuralOk = false;
    } else {
      for (const lint of linters) {
        if (DATE_LINTERS.has(lint)) {
          const r = readDate(comp, ctx.now, lint === 'yymmd0');
          if ('error' in r) fail('invalid_date', `impossible date ${comp}: ${r.error}`, i);
          else dates.push(r.iso);
        } else if (TIME_LINTERS.has(lint)) {
          if (lint === 'hhmi') {
            const e = checkTimeField(comp.slice(0, 2), 'hh') ?? checkTimeField(comp.slice(2), 'mi');
            if (e) fail('invalid_date', `impossible time ${comp}: ${e}`, i);
            else time += `${comp.slice(0, 2)}:${comp.slice(2)}`;
          } else {
            const e = checkTimeField(comp, lint as 'hh' | 'mi' | 'ss');
            if (e) fail('invalid_date', `impossible time ${comp}: ${e}`, i);
            else time += (lint === 'hh' ? '' : ':') + comp;
          }
        } else {
          const fault = runCheck(lint, comp);
          if (fault) {
            if (fault.code === 'check_digit_mismatch') el.mismatch = true;
            fail(fault.code, fault.message, i);
          }
        }
      }
    }
    i += take;
  }
  if (structuralOk && i < raw.length) {
    fail('invalid_length', `value "${raw}" is too long (at most ${def.maxLength} characters)`, i);
    structuralOk = false;
  }
  if (!el.hasErrors) {
    if (dates.length) el.formatted = dates.join('/') + (time ? `T${time}` : '');
    else {
      const num = formatNumeric(def, raw);
      if (num !== null) el.formatted = num;
    }
  }
  return el;
}

/** Parses an unbracketed element string (`s` starts at offset `base` of the caller's text). */
function parseElementString(ctx: Ctx, s: string, base: number): boolean {
  let pos = 0;
  const abort = (ai: string | null, code: Gs1ErrorCode, message: string, at: number) => {
    ctx.errors.push({ ai, code, message, position: base + at });
    return false;
  };
  while (pos < s.length) {
    if (s[pos] === GS) { pos++; continue; } // extra separators (after a predefined-length value) are harmless
    const c = s.charCodeAt(pos);
    if (c < 48 || c > 57) {
      return abort(null, 'unknown_ai', `expected an AI (digits) at position ${base + pos}, found ${describeChar(s[pos])}`, pos);
    }
    const def = matchAi(s, pos);
    if (!def) {
      const rest = s.slice(pos, pos + 4);
      if (/^\d+$/.test(rest) && rest.length < 4 && pos + rest.length === s.length && [...AI_TABLE.keys()].some((a) => a.startsWith(rest) && a.length > rest.length)) {
        return abort(null, 'truncated', `payload ends inside an AI ("${rest}")`, pos);
      }
      const guess = s.slice(pos, pos + probableAiLength(s.slice(pos, pos + 2)));
      if (!/^\d+$/.test(guess)) {
        return abort(null, 'unknown_ai', `"${guess}" at position ${base + pos} is not an AI (AIs are 2 to 4 digits)`, pos);
      }
      return abort(guess, 'unknown_ai', `unknown AI (${guess}) at position ${base + pos}`, pos);
    }
    const vstart = pos + def.ai.length;
    let raw: string;
    if (def.fixedLength !== null) {
      const end = vstart + def.fixedLength;
      const gs = s.indexOf(GS, vstart);
      if (gs >= 0 && gs < end) {
        ctx.errors.push({ ai: def.ai, code: 'invalid_length', position: base + vstart,
          message: `${tag(def)}: value "${s.slice(vstart, gs)}" ended by a separator has ${gs - vstart} characters, needs ${def.fixedLength}` });
        pos = gs + 1;
        continue;
      }
      if (end > s.length) {
        return abort(def.ai, 'truncated', `${tag(def)}: payload ends after ${s.length - vstart} of ${def.fixedLength} characters`, vstart);
      }
      raw = s.slice(vstart, end);
      pos = end;
      if (!def.predefined && pos < s.length && s[pos] !== GS) {
        // Fixed length, but GS1 still requires a separator after it: the boundary is known, so go on.
        ctx.errors.push({ ai: def.ai, code: 'missing_separator', position: base + pos,
          message: `${tag(def)}: a group separator must follow this value` });
      }
    } else {
      const gs = s.indexOf(GS, vstart);
      const vend = gs < 0 ? s.length : gs;
      const len = vend - vstart;
      if (len > def.maxLength) {
        return abort(def.ai, 'missing_separator',
          `${tag(def)}: value runs past its maximum of ${def.maxLength} characters (missing group separator?)`, vstart + def.maxLength);
      }
      if (len < def.minLength) {
        if (gs < 0) return abort(def.ai, 'truncated', `${tag(def)}: payload ends after ${len} of at least ${def.minLength} characters`, vstart);
        ctx.errors.push({ ai: def.ai, code: 'invalid_length', position: base + vstart,
          message: `${tag(def)}: value "${s.slice(vstart, vend)}" has ${len} characters, needs at least ${def.minLength}` });
        pos = vend;
        continue;
      }
      raw = s.slice(vstart, vend);
      pos = vend;
    }
    ctx.elements.push(checkValue(ctx, def, raw, base + vstart));
  }
  return true;
}

/** Parses the bracketed human form "(01)09506000134352(17)261231"; "\(" escapes a "(" in data. */
function parseBracketed(ctx: Ctx, s: string, base: number): boolean {
  let pos = 0;
  while (pos < s.length) {
    const close = s.indexOf(')', pos);
    const ai = close > pos ? s.slice(pos + 1, close) : '';
    if (s[pos] !== '(' || !/^\d{2,4}$/.test(ai)) {
      ctx.errors.push({ ai: null, code: 'bracket_syntax', position: base + pos,
        message: `expected "(AI)" with a 2 to 4 digit AI at position ${base + pos}` });
      return false;
    }
    let value = '';
    const offsets: number[] = [];
    let k = close + 1;
    while (k < s.length && s[k] !== '(') {
      offsets.push(base + k);
      if (s[k] === '\\' && s[k + 1] === '(') { value += '('; k += 2; } else { value += s[k]; k++; }
    }
    offsets.push(base + k); // one past the end, for faults reported after the last character
    const def = aiDef(ai);
    if (!def) {
      // The brackets give the boundary, so the following elements can still be read.
      ctx.errors.push({ ai, code: 'unknown_ai', position: base + pos + 1, message: `unknown AI (${ai})` });
    } else if (value === '') {
      ctx.errors.push({ ai, code: 'invalid_length', position: base + close + 1, message: `${tag(def)}: empty value` });
    } else {
      ctx.elements.push(checkValue(ctx, def, value, base + close + 1, offsets));
    }
    pos = k;
  }
  return true;
}

/** Pairing rules of the dictionary (req / ex) and duplicate AIs with conflicting values. */
function checkAssociations(ctx: Ctx): void {
  const present = ctx.elements.map((e) => e.def.ai);
  const first = new Map<string, ParsedElement>();
  for (const el of ctx.elements) {
    const prev = first.get(el.def.ai);
    if (!prev) { first.set(el.def.ai, el); continue; }
    if (prev.raw !== el.raw) {
      ctx.errors.push({ ai: el.def.ai, code: 'duplicate_ai', position: el.position,
        message: `${tag(el.def)} appears twice with different values ("${prev.raw}" and "${el.raw}")` });
    }
  }
  const reported = new Set<string>();
  for (const [ai, el] of first) {
    for (const rule of el.def.req) {
      const ok = rule.some((alt) => alt.every((pat) => present.some((p) => aiMatches(p, pat))));
      if (!ok) {
        const alts = rule.map((alt) => alt.map((p) => `(${p})`).join(' with '));
        const list = alts.length > 1 ? `${alts.slice(0, -1).join(', ')} or ${alts[alts.length - 1]}` : alts[0];
        ctx.errors.push({ ai, code: 'missing_required_ai', position: el.position, message: `${tag(el.def)} requires ${list}` });
      }
    }
    for (const pat of el.def.ex) {
      for (const other of first.keys()) {
        if (other === ai || !aiMatches(other, pat)) continue;
        const key = [ai, other].sort().join('|');
        if (reported.has(key)) continue;
        reported.add(key);
        const od = first.get(other)!.def;
        ctx.errors.push({ ai, code: 'mutually_exclusive_ai', position: el.position,
          message: `${tag(el.def)} and ${tag(od)} must not appear together` });
      }
    }
  }
}

/** Percent-encodes for a GS1 Digital Link path segment or query value (RFC 3986 unreserved kept). */
function dlEncode(v: string): string {
  return encodeURIComponent(v).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** GS1 Digital Link URI: primary key, its qualifiers in their defined order, attributes as query. */
function digitalLink(elements: ParsedElement[], resolver: string): string | undefined {
  const pk = elements.find((e) => e.def.dlpkey);
  if (!pk || !pk.def.dlpkey) return undefined;
  const has = (ai: string) => elements.some((e) => e.def.ai === ai);
  // Choose the qualifier sequence that covers the most of the AIs present (first on a tie).
  let best: readonly string[] = [];
  for (const seq of pk.def.dlpkey) if (seq.filter(has).length > best.filter(has).length) best = seq;
  const used = new Set<string>([pk.def.ai]);
  let uri = `${resolver.replace(/\/+$/, '')}/${pk.def.ai}/${dlEncode(pk.raw)}`;
  for (const q of best) {
    const el = elements.find((e) => e.def.ai === q);
    if (el) { uri += `/${q}/${dlEncode(el.raw)}`; used.add(q); }
  }
  const query: string[] = [];
  for (const el of elements) {
    if (used.has(el.def.ai) || !el.def.dlAttr) continue;
    used.add(el.def.ai);
    query.push(`${el.def.ai}=${dlEncode(el.raw)}`);
  }
  return query.length ? `${uri}?${query.join('&')}` : uri;
}

/**
 * Unflagged payloads in `auto` mode must prove themselves: "parses completely with valid check
 * digits" needs at least one element that carries a check digit (a GTIN, SSCC, GLN, ...). Without
 * this, any digit string starting 90-99 or 400 (an ISBN in a QR code, a phone number) would read
 * as company-internal GS1 data.
 */
function hasCheckDigit(el: ParsedElement): boolean {
  return el.def.parts.some((p) => p[4].includes('csum') || p[4].includes('csumalpha'));
}

/**
 * Parses a decoded payload into the SPEC 2.2 `gs1` object.
 *
 * - `off`: null.
 * - `auto`: a result when the symbol is flagged GS1 (`symbolIsGs1`, a GS1 `symbologyId`, or a
 *   leading ]J1/]d2/]Q3/]C1/]e0 or FNC1 (GS) in the text); otherwise only when the payload is an
 *   element string that parses completely with no error at all and holds at least one key with
 *   a check digit; else null.
 * - `always`: always a result; also reads the bracketed form "(01)...(17)...".
 */
export function parseGs1(text: string, options: ParseGs1Options): Gs1Result | null {
  const mode = options?.mode ?? 'auto';
  if (mode === 'off') return null;
  const input = typeof text === 'string' ? text : '';
  let flagged = options?.symbolIsGs1 === true || GS1_SYMBOLOGY_IDS.includes(options?.symbologyId ?? '');
  let base = 0;
  if (GS1_SYMBOLOGY_IDS.includes(input.slice(0, 3))) { flagged = true; base = 3; }
  if (input[base] === GS) { flagged = true; base++; } // FNC1 in first position, transmitted as GS
  const body = input.slice(base);
  const now = options?.now instanceof Date && !Number.isNaN(options.now.getTime()) ? options.now : new Date();
  const ctx: Ctx = { now, errors: [], elements: [] };

  let complete: boolean;
  if (body.length === 0) {
    ctx.errors.push({ ai: null, code: 'empty', message: 'no data to parse', position: base });
    complete = false;
  } else if (mode === 'always' && body[0] === '(') {
    complete = parseBracketed(ctx, body, base);
  } else {
    complete = parseElementString(ctx, body, base);
  }
  // Pairing rules only make sense over the whole payload: after an abort, the missing partner is
  // most likely in the part that could not be read.
  if (complete) checkAssociations(ctx);

  const clean = ctx.errors.length === 0;
  if (mode === 'auto' && !flagged && !(clean && ctx.elements.some(hasCheckDigit))) return null;

  const result: Gs1Result = {
    is_gs1: flagged || (ctx.elements.length > 0 && !ctx.errors.some((e) => SYNTAX_CODES.has(e.code))),
    fields: {},
    elements: [],
    errors: ctx.errors,
  };
  for (const el of ctx.elements) {
    const value = el.mismatch ? el.raw + MISMATCH_SUFFIX : el.raw;
    const out: Gs1Element = { ai: el.def.ai, label: el.def.label, value };
    if (el.formatted !== undefined) out.formatted = el.formatted;
    result.elements.push(out);
    if (!(el.def.ai in result.fields)) result.fields[el.def.ai] = value;
  }
  if (ctx.elements.length) result.hri = ctx.elements.map((e) => `(${e.def.ai})${e.raw}`).join('');
  if (clean) {
    const dl = digitalLink(ctx.elements, options?.resolver ?? DEFAULT_RESOLVER);
    if (dl) result.digital_link = dl;
  }
  return result;
}
