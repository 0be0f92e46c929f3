// Property tests: random valid element strings built from the table (seeded, reproducible) are
// parsed back exactly; their HRI re-parses to the same elements; any truncation keeps the
// elements that were complete before the cut; a wrong check digit is always caught.
import * as assert from 'assert';
import { AI_TABLE, checkCharPair, parseGs1, type AiDef } from '../../lib/gs1';
import { CSET39, CSET64, CSET82 } from '../../lib/gs1/checks';

import { rng, withCheckDigit } from './helpers';

const GS = '\u001d';
const NOW = new Date('2025-06-15T00:00:00Z');
const SEED = 20250615;
const PAIRING = new Set(['missing_required_ai', 'mutually_exclusive_ai']);

type Rand = () => number;
const int = (r: Rand, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const pick = (r: Rand, s: string) => s[int(r, 0, s.length - 1)];
const digits = (r: Rand, n: number) => Array.from({ length: n }, () => pick(r, '0123456789')).join('');
const p2 = (n: number) => String(n).padStart(2, '0');

/** A random valid date of 2000-2049 (inside the century window of NOW). */
function date(r: Rand, long: boolean): string {
  const y = int(r, 2000, 2049);
  const m = int(r, 1, 12);
  const d = int(r, 1, 28);
  return (long ? String(y) : p2(y % 100)) + p2(m) + p2(d);
}

/** A random valid value for one component, honouring its linters. */
function component(r: Rand, cset: string, len: number, linters: readonly string[]): string {
  const has = (l: string) => linters.includes(l);
  if (has('yymmd0') || has('yymmdd')) return date(r, false);
  if (has('yyyymmdd')) return date(r, true);
  if (has('hhmi')) return p2(int(r, 0, 23)) + p2(int(r, 0, 59));
  if (has('hh')) return p2(int(r, 0, 23));
  if (has('mi') || has('ss')) return p2(int(r, 0, 59));
  if (has('csum')) return withCheckDigit(digits(r, len - 1));
  if (has('zero')) return '0';
  if (has('yesno')) return pick(r, '01');
  if (has('winding')) return pick(r, '019');
  if (has('iso5218')) return pick(r, '0129');
  if (has('hyphen')) return '-';
  if (has('importeridx')) return pick(r, 'ABCxyz019_-');
  if (has('iso3166alpha2')) return pick(r, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') + pick(r, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ');
  if (has('pieceoftotal')) { const t = int(r, 1, 99); return p2(int(r, 1, t)) + p2(t); }
  if (has('posinseqslash')) { const t = int(r, 1, 9); return `${int(r, 1, t)}/${t}`; }
  if (has('latitude')) return String(int(r, 0, 1800000000)).padStart(10, '0');
  if (has('longitude')) return String(int(r, 0, 3600000000)).padStart(10, '0');
  if (has('iban')) return 'GB82WEST12345698765432';
  if (has('nonzero')) return String(int(r, 1, 9)) + digits(r, len - 1);
  if (has('nozeroprefix')) return String(int(r, 1, 9)) + digits(r, len - 1);
  if (has('csumalpha')) {
    // A letter first (satisfies 'hasnondigit' too), then the GMN check character pair.
    const body = 'A' + Array.from({ length: Math.max(0, len - 3) }, () => pick(r, 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789abc')).join('');
    return body + checkCharPair(body)!;
  }
  const alphabet = cset === 'N' ? '0123456789' : cset === 'Y' ? CSET39 : cset === 'Z' ? CSET64
    : has('pcenc') ? CSET82.replace('%', '') : CSET82;
  return Array.from({ length: len }, () => pick(r, alphabet)).join('');
}

/** A random valid value for an AI: every mandatory part, some optional parts, random lengths. */
function value(r: Rand, def: AiDef): string {
  let out = '';
  for (const [cset, min, max, optional, linters] of def.parts) {
    if (optional && r() < 0.4) break;
    const len = min === max ? max : int(r, Math.max(min, linters.includes('csumalpha') ? 3 : 1), Math.min(max, 30));
    out += component(r, cset, len, linters);
  }
  return out;
}

function randomPayload(r: Rand, ais: string[]): { text: string; els: [string, string][]; ends: number[] } {
  const n = int(r, 1, 6);
  const used = new Set<string>();
  const els: [string, string][] = [];
  const ends: number[] = [];
  let text = '';
  while (els.length < n) {
    const def = AI_TABLE.get(ais[int(r, 0, ais.length - 1)])!;
    if (used.has(def.ai)) continue;
    used.add(def.ai);
    const v = value(r, def);
    if (text && !AI_TABLE.get(els[els.length - 1][0])!.predefined) text += GS;
    text += def.ai + v;
    els.push([def.ai, v]);
    ends.push(text.length);
  }
  return { text, els, ends };
}

describe('gs1 property tests (seeded)', () => {
  const ais = [...AI_TABLE.keys()];

  it('random valid element strings parse back exactly (2000 payloads)', () => {
    const r = rng(SEED);
    for (let i = 0; i < 2000; i++) {
      const { text, els } = randomPayload(r, ais);
      const res = parseGs1(text, { mode: 'always', now: NOW })!;
      const ctx = `payload ${JSON.stringify(text)}: ${JSON.stringify(res.errors)}`;
      assert.deepStrictEqual(res.errors.filter((e) => !PAIRING.has(e.code)), [], ctx);
      assert.deepStrictEqual(res.elements.map((e) => [e.ai, e.value]), els, ctx);
      assert.strictEqual(res.is_gs1, true, ctx);
      for (const [ai, v] of els) assert.strictEqual(res.fields[ai], v, ctx);
    }
  });

  it('every AI of the table round-trips alone, with and without a trailing separator', () => {
    const r = rng(SEED + 1);
    for (const ai of ais) {
      const def = AI_TABLE.get(ai)!;
      for (let k = 0; k < 3; k++) {
        const v = value(r, def);
        for (const text of [ai + v, ai + v + GS]) {
          const res = parseGs1(text, { mode: 'always', now: NOW })!;
          assert.deepStrictEqual(res.errors.filter((e) => !PAIRING.has(e.code)), [], `${JSON.stringify(text)}`);
          assert.deepStrictEqual(res.elements.map((e) => [e.ai, e.value]), [[ai, v]]);
        }
      }
    }
  });

  it('the HRI of a payload, read back in the bracketed form, gives the same elements', () => {
    const r = rng(SEED + 2);
    for (let i = 0; i < 500; i++) {
      const { text, els } = randomPayload(r, ais);
      const res = parseGs1(text, { mode: 'always', now: NOW })!;
      // The HRI is for people and does not escape "(" in data; the bracketed syntax needs "\(".
      const bracketed = els.map(([ai, v]) => `(${ai})${v.replace(/\(/g, '\\(')}`).join('');
      assert.strictEqual(res.hri, els.map(([ai, v]) => `(${ai})${v}`).join(''));
      const back = parseGs1(bracketed, { mode: 'always', now: NOW })!;
      assert.deepStrictEqual(back.elements, res.elements, bracketed);
    }
  });

  it('any truncation never throws and keeps every element completed before the cut', () => {
    const r = rng(SEED + 3);
    for (let i = 0; i < 300; i++) {
      const { text, els, ends } = randomPayload(r, ais);
      const cut = int(r, 0, text.length - 1);
      const res = parseGs1(text.slice(0, cut), { mode: 'always', now: NOW })!;
      // An element is safe when it ended, and (variable length) its separator was also kept.
      let complete = 0;
      while (complete < els.length && (ends[complete] < cut || (ends[complete] === cut && AI_TABLE.get(els[complete][0])!.predefined))) complete++;
      assert.deepStrictEqual(res.elements.slice(0, complete).map((e) => [e.ai, e.value]), els.slice(0, complete), JSON.stringify(text.slice(0, cut)));
    }
  });

  it('a changed check digit on any mod-10 key is always reported with the suffix', () => {
    const r = rng(SEED + 4);
    const keys = ais.filter((ai) => AI_TABLE.get(ai)!.parts.some((p) => p[4].includes('csum')));
    assert.ok(keys.length >= 20, `only ${keys.length} keys with a check digit`);
    for (const ai of keys) {
      const def = AI_TABLE.get(ai)!;
      const good = value(r, def);
      // Position of the check digit: the end of the first component that carries 'csum'.
      let at = 0;
      for (const p of def.parts) { at += p[2]; if (p[4].includes('csum')) break; }
      const bad = good.slice(0, at - 1) + String((Number(good[at - 1]) + int(r, 1, 9)) % 10) + good.slice(at);
      const res = parseGs1(ai + bad, { mode: 'always', now: NOW })!;
      assert.deepStrictEqual(res.errors.filter((e) => !PAIRING.has(e.code)).map((e) => e.code), ['check_digit_mismatch'], ai + bad);
      assert.strictEqual(res.fields[ai], `${bad} (check digit mismatch)`);
    }
  });

  it('random bytes never throw in any mode', () => {
    const r = rng(SEED + 5);
    for (let i = 0; i < 2000; i++) {
      const len = int(r, 0, 40);
      const t = Array.from({ length: len }, () => String.fromCharCode(r() < 0.7 ? int(r, 48, 57) : r() < 0.5 ? 29 : int(r, 0, 255))).join('');
      for (const mode of ['auto', 'always'] as const) {
        const res = parseGs1(t, { mode, now: NOW });
        if (res) for (const e of res.errors) assert.ok(typeof e.code === 'string' && typeof e.message === 'string');
      }
    }
  });
});
