// Payload bytes -> text, following the symbol's ECI designators (ISO/IEC 15424 / AIM ECI).
// Nothing is trimmed or normalised: every byte of a segment becomes exactly one character
// sequence of that segment's character set.

/** TextDecoder labels for the character-set ECIs. Anything not listed is read as Latin-1. */
const ECI_LABELS: Record<number, string> = {
  4: 'iso-8859-2', 5: 'iso-8859-3', 6: 'iso-8859-4', 7: 'iso-8859-5', 8: 'iso-8859-6',
  9: 'iso-8859-7', 10: 'iso-8859-8', 11: 'windows-1254' /* superset of 8859-9 */, 12: 'iso-8859-10',
  13: 'windows-874' /* superset of 8859-11 */, 15: 'iso-8859-13', 16: 'iso-8859-14',
  17: 'iso-8859-15', 18: 'iso-8859-16', 20: 'shift_jis', 21: 'windows-1250', 22: 'windows-1251',
  23: 'windows-1252', 24: 'windows-1256', 25: 'utf-16be', 26: 'utf-8', 28: 'big5', 29: 'gbk',
  30: 'euc-kr', 31: 'gbk', 32: 'gb18030', 33: 'utf-16le',
};

import { TextDecoder } from 'util';

const decoders = new Map<string, TextDecoder>();

/**
 * Decodes one segment. ISO-8859-1 (ECI 1, 3, no ECI) and the byte-transparent ECIs (27 ASCII,
 * 170 ASCII invariant, 899 binary, and any ECI that is not a character set) map each byte to the
 * code point of the same value: WHATWG's TextDecoder('iso-8859-1') is really windows-1252, which
 * would alter bytes 0x80-0x9F, so Latin-1 goes through Buffer instead.
 */
export function decodeSegment(bytes: Uint8Array, eci: number | null): string {
  if (eci === 34 || eci === 35) return decodeUtf32(bytes, eci === 34);
  const label = eci === null ? undefined : ECI_LABELS[eci];
  if (!label) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let d = decoders.get(label);
  if (!d) {
    try {
      d = new TextDecoder(label, { fatal: false, ignoreBOM: true });
    } catch {
      // A Node built without full ICU lacks some legacy decoders: keep the bytes visible.
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    }
    decoders.set(label, d);
  }
  return d.decode(bytes);
}

function decodeUtf32(bytes: Uint8Array, bigEndian: boolean): string {
  let out = '';
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i + 4 <= bytes.byteLength; i += 4) {
    const cp = view.getUint32(i, !bigEndian);
    out += cp <= 0x10ffff ? String.fromCodePoint(cp) : '\ufffd';
  }
  return out;
}

/** An ECI and the offset into the payload bytes from which it applies (the DotCode addon). */
export interface EciSegment {
  offset: number;
  eci: number;
}

/**
 * Text of a symbol whose decoder reports where each ECI takes effect (the DotCode addon's
 * `eciSegments`, in order of appearance). Bytes before the first ECI are ISO-8859-1 (the default
 * of FORMAT.md 8.8); each ECI then applies up to the next one, so a symbol that switches from,
 * say, ISO-8859-5 to UTF-8 mid-message reads exactly. Two ECIs at the same offset leave an empty
 * segment, i.e. the later one wins. Offsets are clamped into the payload and never go backwards,
 * so a malformed list cannot drop or repeat bytes.
 */
export function textFromEciSegments(bytes: Uint8Array, segments: readonly EciSegment[]): string {
  let text = '';
  let start = 0;
  let current: number | null = null;
  for (const seg of segments) {
    const at = Math.min(bytes.length, Math.max(start, seg.offset));
    if (at > start) text += decodeSegment(bytes.subarray(start, at), current);
    start = at;
    current = seg.eci;
  }
  if (start < bytes.length || segments.length === 0) text += decodeSegment(bytes.subarray(start), current);
  return text;
}

/**
 * Text of a symbol whose decoder reports the ECIs as a list without positions (a DotCode addon
 * built before `eciSegments` existed, e.g. an old prebuild). One charset ECI decodes the whole
 * payload; with several different ones the positions are unknown, so the first charset ECI is
 * applied.
 */
export function textFromEciList(bytes: Uint8Array, ecis: readonly number[]): string {
  const charsetEci = ecis.find((e) => ECI_LABELS[e] !== undefined || e === 34 || e === 35);
  return decodeSegment(bytes, charsetEci ?? (ecis.length ? ecis[0] : null));
}

/**
 * Text from the ECI protocol form (`\nnnnnn` marks an ECI, `\\` is a literal backslash) that
 * zxing-cpp reports as `bytesECI` when a symbol has ECIs. A leading AIM symbology identifier
 * (`]xm`) is skipped. Returns the text and the ECIs met, in order.
 */
export function textFromEciProtocol(bytesEci: Uint8Array): { text: string; ecis: number[] } {
  let i = 0;
  if (bytesEci.length >= 3 && bytesEci[0] === 0x5d /* ] */) i = 3;
  const ecis: number[] = [];
  let text = '';
  let current: number | null = null;
  let seg: number[] = [];
  const flush = () => {
    if (seg.length) text += decodeSegment(Uint8Array.from(seg), current);
    seg = [];
  };
  while (i < bytesEci.length) {
    const b = bytesEci[i];
    if (b === 0x5c /* \ */ && i + 1 < bytesEci.length && bytesEci[i + 1] === 0x5c) {
      seg.push(0x5c);
      i += 2;
      continue;
    }
    if (b === 0x5c && i + 7 <= bytesEci.length && isDigits(bytesEci, i + 1, 6)) {
      flush();
      current = Number(Buffer.from(bytesEci.subarray(i + 1, i + 7)).toString('latin1'));
      ecis.push(current);
      i += 7;
      continue;
    }
    seg.push(b);
    i += 1;
  }
  flush();
  return { text, ecis };
}

function isDigits(a: Uint8Array, from: number, n: number): boolean {
  for (let k = from; k < from + n; k++) if (a[k] < 0x30 || a[k] > 0x39) return false;
  return true;
}
