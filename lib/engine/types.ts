// Public types of the engine (docs/ARCHITECTURE.md, "Engine API"). Kept in their own file so the
// worker code and the public module share them without importing each other.

/** The symbologies the engine reads, spelled exactly as SPEC section 1 names them. */
export const FORMATS = ['DotCode', 'QRCode', 'DataMatrix', 'PDF417', 'Aztec', 'MaxiCode'] as const;
export type Format = (typeof FORMATS)[number];

/** GS1 parsing: `auto` parses payloads that look like GS1, `always` always tries, `off` never. */
export const GS1_MODES = ['auto', 'always', 'off'] as const;
export type Gs1Mode = (typeof GS1_MODES)[number];

/** A raw frame of 8-bit pixels, row-major, no padding: grey (1), RGB (3) or RGBA (4) channels. */
export interface RawFrame {
  data: Uint8Array | Uint8ClampedArray | Buffer;
  width: number;
  height: number;
  channels: 1 | 3 | 4;
  /** Channel order of 3/4-channel data. OpenCV frames are BGR; plain frames default to RGB. */
  order?: 'rgb' | 'bgr';
}

/** An OpenCV `Mat` by duck type (opencv4nodejs need not be installed). Pixels are BGR(A). */
export interface MatLike {
  rows: number;
  cols: number;
  channels: number | (() => number);
  getData(): Uint8Array | Buffer;
}

export type ImageInput = string | Buffer | Uint8Array | RawFrame | MatLike;

export interface DecodeOptions {
  /** Restrict reading to one symbology; without it DotCode is tried first, then the others. */
  format?: Format;
  /** GS1 parsing mode, default `auto`. */
  gs1?: Gs1Mode;
}

/** The `gs1` member (SPEC 2.2); produced by lib/gs1. */
export interface Gs1Result {
  is_gs1: boolean;
  fields: Record<string, string>;
  elements: { ai: string; label: string; value: string; formatted?: string }[];
  errors: { ai: string | null; code: string; message: string; position?: number }[];
  hri?: string;
  digital_link?: string;
}

/** SPEC 2.1: exactly these members, in this order. */
export interface DecodeResult {
  ok: boolean;
  text: string | null;
  format: Format | null;
  via: string;
  elapsed_ms: number;
  error: string | null;
  gs1: Gs1Result | null;
}

export interface Point {
  x: number;
  y: number;
}

/** One symbol of `decodeAll`: the SPEC 2.1 members plus what the symbol itself carries. */
export interface SymbolResult extends DecodeResult {
  /** The payload bytes exactly as encoded (no symbology identifier, no ECI escapes). */
  bytes: Buffer;
  /** AIM symbology identifier, e.g. `]Q1`, `]d2`, `]J0` (never part of `text`). */
  symbology_id: string;
  /** ECI designators in order of appearance (empty when the symbol has none). */
  ecis: number[];
  /** Symbol corners in image pixels: top-left, top-right, bottom-right, bottom-left. */
  corners: Point[];
  structured_append: { index: number; count: number; file_id: string | number | null } | null;
}

export interface DecodeAllResult {
  ok: boolean;
  symbols: SymbolResult[];
  elapsed_ms: number;
  error: string | null;
}

/** What probeImage() tells from the first bytes of a file, without decoding pixels. */
export interface ImageProbe {
  type: 'png' | 'jpeg' | 'webp' | null;
  width: number | null;
  height: number | null;
}
