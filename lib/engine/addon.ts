// The DotCode reader's interface (native/addon/addon.cpp, and its WebAssembly build with the same
// calls): its TypeScript types and its loader, in one place for the engine, the benches and the
// tests. backend.ts picks the addon (node-gyp-build from the package root: a prebuilt binary in
// prebuilds/ when no local build exists) or the WebAssembly reader.
import { packageRoot } from '../package-root';
import { loadReader } from './backend';
import type { EciSegment } from './charset';
import type { Point } from './types';

export interface NativeRead {
  bytes: Buffer;
  gs1: boolean;
  ecis: number[];
  /** Absent from addons built before segments were recorded (then only `ecis` is known). */
  eciSegments?: EciSegment[];
  structuredAppend: { index: number; count: number; fileId: number | null } | null;
  readerInit: boolean;
  macro: string | null;
  symbologyId: string;
  via: string;
  corners: Point[];
}

/** A read as inspectImageSync reports it: the symbol's geometry and error correction too. */
export interface NativeInspectRead extends NativeRead {
  rows: number;
  cols: number;
  errorsCorrected: number;
  erasuresCorrected: number;
  ecBudget: number;
}

/** What one detector pass saw (native/detector/detector_trace.h); coordinates in image pixels. */
export interface NativeTracePass {
  via: string;
  /** Polarity looked for: dark dots on a light ground, or light dots on a dark one. */
  dark: boolean;
  region: { x0: number; y0: number; x1: number; y1: number };
  /** Pass pixels per image pixel (2 upsampled, 0.5 downsampled). */
  scale: number;
  /**
   * Run by the deconvolving stages, the last of a read: after the image's direct stages and, for
   * a large image, after its halved copy was read.
   */
  deconvolving: boolean;
  /** Dot candidates, flat [x, y, diameter, ...]. */
  dots: Float32Array;
  /** One array of indices into `dots` per cluster. */
  clusters: Int32Array[];
  lattices: NativeTraceLattice[];
}

export interface NativeTraceLattice {
  /** Index into the pass's clusters. */
  cluster: number;
  outcome: string;
  /** Accepted lattice dots, flat [x, y, diameter, ...], with their grid positions in row/col. */
  dots: Float32Array;
  row: Int32Array;
  col: Int32Array;
  rows: number;
  cols: number;
  pitch: number;
}

/** One sampled grid handed to the decoder. */
export interface NativeTraceHypothesis {
  pass: number;
  lattice: number;
  rows: number;
  cols: number;
  /** Row-major presence in [0, 1]; 0.5 is an erasure, off-parity positions are 0. */
  values: Float32Array;
  corners: Point[];
  outcome: string;
}

/** One read of a large photo's window (detector_trace.h TraceWindow), in the order read. */
export interface NativeTraceWindow {
  region: { x0: number; y0: number; x1: number; y1: number };
  /** The second sweep (the deconvolving stages); false: the first stages. */
  deconvolving: boolean;
  /** Symbols this read found (overlapping windows may both hold one). */
  read: number;
}

export interface NativeInspection {
  results: NativeInspectRead[];
  passes: NativeTracePass[];
  hypotheses: NativeTraceHypothesis[];
  windows: NativeTraceWindow[];
}

/** What decodeGrid answers: one decoded symbol with its error-correction figures. */
export interface NativeSymbol {
  bytes: Buffer; gs1: boolean; ecis: number[];
  eciSegments?: EciSegment[];
  structuredAppend: { index: number; count: number; fileId: number | null } | null;
  readerInit: boolean; macro: string | null; symbologyId: string; rows: number; cols: number;
  mask: number; errorsCorrected: number; erasuresCorrected: number; ecBudget: number;
  orientation: number; mirrored: boolean;
}

/** A sampled grid for decodeGrid: row-major presence in [0, 1], 0.5 an erasure. */
export interface NativeGrid { rows: number; cols: number; values: ArrayLike<number> }

/** Options of the image reads (native/detector ReadOptions). */
export interface NativeReadOptions { tryHarder?: boolean; thorough?: boolean; maxSymbols?: number; timeBudgetMs?: number }

/** A read of the video fusion (native/detector/frame_fusion.h): a frame's own, or of fused frames. */
export interface NativeFrameRead extends NativeRead {
  /** 1: this frame alone read it; more: the frames whose values were fused. */
  framesUsed: number;
  /** The symbol's track (stable while it stays in view), -1 when none. */
  track: number;
}

/** What pushFrame answers for one frame. */
export interface NativeFramePush {
  reads: NativeFrameRead[];
  /** Payloads of symbols read earlier whose lattice this frame showed without reading it. */
  seen: Buffer[];
  /** The detector on this frame, and tracking + fusion + decoding the fused grids (ms). */
  detectMs: number;
  fuseMs: number;
}

/** A video fusion's state in the reader (opaque). */
export type NativeFrameFusion = object;

export interface Addon {
  /** Video fusion: tracks symbols over frames (absent from readers built before it). */
  createFrameFusion?(maxFrames: number): NativeFrameFusion;
  pushFrame?(fusion: NativeFrameFusion, grey: Uint8Array, width: number, height: number, options?: NativeReadOptions): Promise<NativeFramePush>;
  resetFrameFusion?(fusion: NativeFrameFusion): void;
  readImageSync(grey: Uint8Array, width: number, height: number, options?: NativeReadOptions): NativeRead[];
  readImage(grey: Uint8Array, width: number, height: number, options?: NativeReadOptions): Promise<NativeRead[]>;
  /** The same read as readImageSync, with what every detector stage saw (dotcode inspect). */
  inspectImageSync(grey: Uint8Array, width: number, height: number, options?: NativeReadOptions): NativeInspection;
  decodeGrid(grid: NativeGrid, options?: { erasureMargin?: number }): NativeSymbol | null;
  /**
   * A JPEG's grey plane written into `grey` (one byte per pixel, allocated by the caller at the
   * size the header names) by libjpeg-turbo on the libuv pool: null when done, else why it refused
   * (native/addon/jpeg_grey.h). Absent from the WebAssembly reader and older addons.
   */
  jpegToGrey?(bytes: Uint8Array, grey: Uint8Array): Promise<string | null>;
  /** Whether jpegToGrey can answer with a plane here (libjpeg-turbo found at run time). */
  jpegAvailable?(): boolean;
  /**
   * A WebP's grey plane written into `grey` (allocated by the caller at the size the header
   * names) by libwebp, in the calling thread: null when done, else why it refused
   * (native/addon/webp_grey.h). Absent from the WebAssembly reader and older addons.
   */
  webpToGreySync?(bytes: Uint8Array, grey: Uint8Array): string | null;
  /** Whether webpToGreySync can answer with a plane here (libwebp found at run time). */
  webpAvailable?(): boolean;
}

let addon: Addon | undefined;

/**
 * The DotCode reader, loaded once: the addon, or its WebAssembly build where no addon loads
 * (backend.ts, DOTCODE_ENGINE). A failure says what is missing and how to get it (a checkout
 * needs a build; an installed package should have found its prebuilt binary or its .wasm),
 * instead of node-gyp-build's bare "No native build was found".
 */
export function loadAddon(): Addon {
  if (addon) return addon;
  const root = packageRoot();
  try {
    addon = loadReader(root);
  } catch (e) {
    const why = (e as Error).message.split('\n')[0];
    throw new Error(`the DotCode reader could not be loaded from ${root} (${why}).\n` +
      `- In a checkout: build it with "npm ci" or "npx node-gyp rebuild" (needs g++, make and python3); "npm run build:wasm" builds the WebAssembly reader (needs emscripten).\n` +
      `- Installed from npm: this platform (${process.platform}-${process.arch}, Node ${process.versions.node}) has neither a prebuilt binary ` +
      `in prebuilds/ nor a working WebAssembly reader; reinstall the package, or unset DOTCODE_ENGINE=native.`);
  }
  return addon;
}

const offered = new Map<string, Addon | null>();

/**
 * The addon when it offers an optional feature here (a decoder whose system library it opens at
 * run time: `offers` asks it), else null: with the WebAssembly reader, an older addon, or the
 * library missing. Asked once per feature; never throws (no reader at all is reported by the
 * decode itself).
 */
export function addonOffering(feature: string, offers: (a: Addon) => boolean): Addon | null {
  if (offered.has(feature)) return offered.get(feature) ?? null;
  let found: Addon | null = null;
  try {
    const a = loadAddon();
    found = offers(a) ? a : null;
  } catch {
    found = null;
  }
  offered.set(feature, found);
  return found;
}
