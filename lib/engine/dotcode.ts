// DotCode through the C++ reader (native/detector via native/addon): the addon, loaded with
// node-gyp-build from the package root (a prebuilt binary in prebuilds/ when no local build
// exists), or its WebAssembly build where no addon loads (backend.ts decides).
import * as path from 'path';
import { loadReader } from './backend';
import { textFromEciList, textFromEciSegments, type EciSegment } from './charset';
import type { GreyImage } from './image';
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

export interface NativeInspection {
  results: NativeInspectRead[];
  passes: NativeTracePass[];
  hypotheses: NativeTraceHypothesis[];
}

export interface Addon {
  readImageSync(grey: Uint8Array, width: number, height: number, options?: object): NativeRead[];
  readImage(grey: Uint8Array, width: number, height: number, options?: object): Promise<NativeRead[]>;
  /** The same read as readImageSync, with what every detector stage saw (dotcode inspect). */
  inspectImageSync(grey: Uint8Array, width: number, height: number, options?: object): NativeInspection;
  decodeGrid(grid: object, options?: object): unknown;
}

/** dist/lib/engine -> package root (three levels up, the same in the repo and in the tarball). */
export const packageRoot = path.resolve(__dirname, '..', '..', '..');

let addon: Addon | undefined;
export function loadAddon(): Addon {
  if (!addon) addon = loadReader(packageRoot);
  return addon;
}

export interface DotCodeSymbol {
  bytes: Buffer;
  text: string;
  symbologyId: string;
  ecis: number[];
  gs1: boolean;
  via: string;
  corners: Point[];
  structuredAppend: { index: number; count: number; file_id: number | null } | null;
}

/** Native read -> symbol: payload text by the symbol's ECIs (one mapping for every entry point). */
export function toSymbol(r: NativeRead): DotCodeSymbol {
  return {
    bytes: r.bytes,
    text: r.eciSegments ? textFromEciSegments(r.bytes, r.eciSegments) : textFromEciList(r.bytes, r.ecis),
    symbologyId: r.symbologyId,
    ecis: r.ecis,
    gs1: r.gs1,
    via: r.via,
    corners: r.corners,
    structuredAppend: r.structuredAppend
      ? { index: r.structuredAppend.index, count: r.structuredAppend.count, file_id: r.structuredAppend.fileId }
      : null,
  };
}

/**
 * Runs the native reader synchronously. Only decodeSync's helper thread calls this, where
 * blocking blocks no event loop that matters.
 */
export function readDotCode(grey: GreyImage, maxSymbols: number): DotCodeSymbol[] {
  return loadAddon().readImageSync(grey.data, grey.width, grey.height, { maxSymbols }).map(toSymbol);
}

/**
 * Runs the native reader on the libuv thread pool (the addon's AsyncWorker), so the caller's
 * event loop stays free. The addon holds a reference to `grey.data` until it answers: the plane
 * must not be transferred or changed before the promise settles. Bad arguments reject.
 */
export async function readDotCodeAsync(grey: GreyImage, maxSymbols: number): Promise<DotCodeSymbol[]> {
  const reads = await loadAddon().readImage(grey.data, grey.width, grey.height, { maxSymbols });
  return reads.map(toSymbol);
}
