// Public types of the engine (docs/ARCHITECTURE.md, "Engine API"). Kept in their own file so the
// worker code and the public module share them without importing each other.

/** The symbologies the engine reads, spelled exactly as SPEC section 1 names them. */
export const FORMATS = ['DotCode', 'QRCode', 'DataMatrix', 'PDF417', 'Aztec', 'MaxiCode'] as const;
export type Format = (typeof FORMATS)[number];

/** GS1 parsing: `auto` parses payloads that look like GS1, `always` always tries, `off` never. */
export const GS1_MODES = ['auto', 'always', 'off'] as const;
export type Gs1Mode = (typeof GS1_MODES)[number];

/**
 * How hard the readers look (docs/engine.md, "Speed"): `balanced` (default) reads what the
 * engine has always read, trying a cheap pass first and the expensive ones only when it finds
 * nothing; `video` is one cheap pass per reader, for live camera frames where the next frame is
 * another chance; `thorough` adds further passes (denoising, another binarizer) when the usual
 * ones find nothing, for single photographs that must be read.
 */
export const SPEEDS = ['video', 'balanced', 'thorough'] as const;
export type Speed = (typeof SPEEDS)[number];
/** What decode(), FrameReader and inspect() use when no speed is given. */
export const DEFAULT_SPEED: Speed = 'balanced';
/** Whether a caller's value is one of SPEEDS. */
export const isSpeed = (v: unknown): v is Speed => (SPEEDS as readonly unknown[]).includes(v);

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
  /** `video`, `balanced` (default) or `thorough`: see {@link SPEEDS}. */
  speed?: Speed;
  /**
   * Debugging: after the decode, also writes what the DotCode detector saw on this image into
   * this folder, as `inspect()` does with `out` (PNG overlays, report.txt, report.json). The
   * result is the same as without it. decode()/decodeAll() have written the folder when they
   * answer; decodeSync() starts the writing and returns (the files follow shortly). A folder
   * that cannot be written is a process warning, never a decode error.
   */
  debugDir?: string;
}

/** Options of inspect() (docs/engine.md, "Why does my code not read?"). */
export interface InspectOptions {
  /** Folder for the overlays and the report, created if missing. Without it nothing is written. */
  out?: string;
  /** Only the DotCode detector is traced; `DotCode` is accepted so callers can say so. */
  format?: 'DotCode';
  /** Trace what decodeAll() does (look for every symbol) instead of decode() (stop at the first). */
  all?: boolean;
  /**
   * The speed of the decode to trace (`balanced` by default, as decode()): its DotCode passes and
   * its time budget for an image of this size, so a read decode() makes late (a large photo's
   * windows) is traced too.
   */
  speed?: Speed;
}

/**
 * Where the read was lost, the furthest stage any pass reached: `read`; `refused` (grids were
 * sampled, the decoder refused them all); `no_grid` (a lattice was fitted but not mapped to a
 * grid); `lattice_rejected` (a lattice was started, its growth or fill check failed);
 * `no_lattice` (dots were grouped, no group is a lattice); `no_cluster` (dot candidates, never
 * enough together); `no_dots`; `error` (nothing was inspected: the image could not be loaded or
 * an option is wrong, see `error`).
 */
export type InspectStage =
  | 'read' | 'refused' | 'no_grid' | 'lattice_rejected' | 'no_lattice' | 'no_cluster' | 'no_dots' | 'error';

/** What inspect() found. Passes, clusters, lattices and grids are numbered from 1, as in the file names. */
export interface InspectReport {
  /** A DotCode was read. */
  ok: boolean;
  /** `decode_error:<detail>` (decode's codes) when nothing was inspected, else null. */
  error: string | null;
  stage: InspectStage;
  /** One line: where the read was lost and which file shows it. */
  verdict: string;
  image: { width: number; height: number } | null;
  passes: InspectPass[];
  /** The grids handed to the decoder, in the order tried. */
  hypotheses: InspectHypothesis[];
  /**
   * A large photo (over 1.5 times 1920 x 1080 pixels) whose whole read found nothing is read again
   * in overlapping windows, the middle ones first: every window's first stages, then the
   * deconvolving stages of those that read nothing. Each read of a window in the order it ran;
   * windows the time budget did not reach are missing. Empty for smaller images.
   */
  windows: InspectWindow[];
  results: InspectRead[];
  /** The folder written, or null without `out`. */
  out: string | null;
  /** The files written into `out`, by name. */
  files: string[];
}

/** Which stages of a read ran a pass or a window: the first ones, or the deconvolving ones after them. */
export type InspectStageGroup = 'first' | 'deconvolving';

export interface InspectPass {
  id: number;
  via: string;
  /** The dots looked for: dark dots on a light ground, or light dots on a dark one. */
  polarity: 'dark' | 'light';
  /** The region read, in image pixels (x1, y1 exclusive). */
  region: { x0: number; y0: number; x1: number; y1: number };
  /** Pass pixels per image pixel: 2 when the region was upsampled, 0.5 when downsampled. */
  scale: number;
  /**
   * `deconvolving`: run by the last stages of a read, which deconvolve each region before they
   * read it, after the first stages and, for an image over 1400 px a side, after its halved copy
   * was read (the halved copy's own passes are not listed).
   */
  stages: InspectStageGroup;
  candidates: number;
  /** Dots in each cluster, cluster 1 first. */
  clusters: number[];
  lattices: InspectLattice[];
}

export interface InspectWindow {
  /** Numbered in the order read; a window read in both sweeps has two entries. */
  id: number;
  /** The window, in image pixels (x1, y1 exclusive). */
  region: { x0: number; y0: number; x1: number; y1: number };
  stages: InspectStageGroup;
  /** Symbols this read found (overlapping windows may both hold one; the windows' passes are not traced one by one). */
  read: number;
}

export interface InspectLattice {
  /** Numbered over all passes; `lattice-<id>.png` shows it when it got dots. */
  id: number;
  /** The cluster it was fitted to, numbered from 1 within its pass. */
  cluster: number;
  /** `no lattice`, `texture`, `lattice rejected (growth or fill)`, `no grid map` or `sampled`. */
  outcome: string;
  dots: number;
  rows: number;
  cols: number;
  /** Image pixels between neighbouring grid positions. */
  pitch: number;
  file: string | null;
}

export interface InspectHypothesis {
  /** `grid-<id>.png` shows the sampled grid. */
  id: number;
  /** The pass and lattice (ids above) it was sampled from. */
  pass: number;
  lattice: number;
  rows: number;
  cols: number;
  /** Positions the sampler could not call dot or no dot (the decoder's erasure margin around 0.5). */
  erasures: number;
  outcome: 'decoded' | 'refused' | string;
  /** Image positions of the sampled grid's four outer corner positions, clockwise. */
  corners: Point[];
  file: string | null;
}

export interface InspectRead {
  text: string;
  via: string;
  corners: Point[];
  rows: number;
  cols: number;
  errors_corrected: number;
  erasures_corrected: number;
  /** Check codewords of the symbol (an error costs two of them, an erasure one). */
  ec_budget: number;
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
