// Read rate on the real photographs of ../shared/corpus/real-dotcode (issue 11), shared by
// `readrate.js --real`, its `--transforms` (readrate-real-transforms.ts) and
// test/readrate/real-photos.test.ts so all score the same way.
// Each photo goes through the engine's own steps: loadGrey (sharp, BT.601 luma on the
// gamma-encoded values) and readDotCode (the addon's readImageSync with up to 64 symbols, bytes
// to text by the symbol's ECIs), i.e. what decodeAll({ format: 'DotCode' }) does. The photos are
// test data only: they are read in place, never copied.
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

import { type DotCodeOptions, readDotCode } from '../lib/engine/dotcode';
import { type GreyImage, loadGrey } from '../lib/engine/image';
import { percentile, REPO_ROOT } from './readrate-core';

export const REAL_DIR = path.resolve(REPO_ROOT, '..', 'shared', 'corpus', 'real-dotcode');
export const REAL_KINDS = ['pack', 'print'] as const;
export type RealKind = (typeof REAL_KINDS)[number];

/** decodeAll's symbol limit (lib/engine/core.ts): every symbol in the photo is looked at. */
const MAX_SYMBOLS = 64;

/**
 * Photos that show more than the one symbol the manifest names: the other texts are real reads,
 * not misreads. scn-13.png is a printed page with a second DotCode in its lower-left corner (seen
 * by eye; our reader returns https://h-node.org for it, a sibling site of the gnu.org symbol the
 * page is about). Any other text still counts as a misread.
 */
export const ALSO_IN_PHOTO: Readonly<Record<string, readonly string[]>> = {
  'scn-13.png': ['https://h-node.org'],
  // A printed DotCode lies on the sheet beside the pack (right of it, seen by eye); under a
  // brighter exposure or gamma 0.5 (readrate-real-transforms.ts) the reader returns it.
  'scn-hd-case-11.png': ['https://blog.csdn.net/weixin_30338497/article/details/98571620'],
};

export interface RealPhoto {
  file: string;
  expected: string;
  kind: RealKind;
}

/** The manifest's photos, or null when the corpus is not on this machine. */
export function realPhotos(dir = REAL_DIR): RealPhoto[] | null {
  const manifest = path.join(dir, 'manifest.json');
  if (!existsSync(manifest)) return null;
  const m = JSON.parse(readFileSync(manifest, 'utf8')) as { images: RealPhoto[] };
  for (const p of m.images) {
    if (!(REAL_KINDS as readonly string[]).includes(p.kind)) throw new Error(`${p.file}: unknown kind ${p.kind}`);
  }
  return m.images;
}

export interface RealOutcome {
  photo: RealPhoto;
  /** Every text returned (a read is the expected text among them; anything else is a misread). */
  got: string[];
  read: boolean;
  misread: boolean;
  error?: string;
  greyMs: number;
  detectMs: number;
}

export async function readRealPhoto(photo: RealPhoto, dir = REAL_DIR, options: DotCodeOptions = {}): Promise<RealOutcome> {
  const t0 = process.hrtime.bigint();
  const grey = await loadGrey({ kind: 'path', path: path.join(dir, photo.file) });
  const t1 = process.hrtime.bigint();
  return { ...readRealGrey(photo, grey, options), greyMs: Number(t1 - t0) / 1e6 };
}

/**
 * Reads a grey plane of `photo` (the photo itself, or a copy transformed as another camera would
 * show it) as decodeAll does, and scores it: read when the expected text is among the texts,
 * misread when any other text is (ALSO_IN_PHOTO aside).
 */
export function readRealGrey(photo: RealPhoto, grey: GreyImage, options: DotCodeOptions = {}): Omit<RealOutcome, 'greyMs'> {
  const t0 = process.hrtime.bigint();
  let got: string[] = [];
  let error: string | undefined;
  try {
    got = readDotCode(grey, MAX_SYMBOLS, options).map((s) => s.text);
  } catch (e) {
    error = (e as Error).message;
  }
  const t1 = process.hrtime.bigint();
  return {
    photo, got, error, read: got.includes(photo.expected),
    misread: got.some((g) => g !== photo.expected && !(ALSO_IN_PHOTO[photo.file] ?? []).includes(g)),
    detectMs: Number(t1 - t0) / 1e6,
  };
}

export interface RealStats {
  kind: RealKind;
  n: number;
  read: number;
  misreads: number;
  errors: number;
  greyMedianMs: number;
  detectMedianMs: number;
  detectP95Ms: number;
}

export function summarizeReal(kind: RealKind, outs: RealOutcome[]): RealStats {
  const mine = outs.filter((o) => o.photo.kind === kind);
  return {
    kind, n: mine.length, read: mine.filter((o) => o.read).length, misreads: mine.filter((o) => o.misread).length,
    errors: mine.filter((o) => o.error).length,
    greyMedianMs: percentile(mine.map((o) => o.greyMs), 0.5),
    detectMedianMs: percentile(mine.map((o) => o.detectMs), 0.5), detectP95Ms: percentile(mine.map((o) => o.detectMs), 0.95),
  };
}
