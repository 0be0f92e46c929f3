// Shared helpers for the zxing-samples corpus (../shared/corpus/zxing-samples): used by the
// corpus test and by bench/engine-symbologies.ts.
import * as fs from 'fs';
import * as path from 'path';
import { sharedPath } from '../support/shared-data';

export const repoRoot = path.resolve(__dirname, '..', '..', '..');
export const corpusDir = sharedPath('corpus/zxing-samples');

export interface Sample {
  folder: string;
  file: string;
  image: string;
  /** Expected text (.txt, UTF-8) or bytes (.bin); null for the falsepositives folders. */
  expectedText: string | null;
  expectedBytes: Buffer | null;
}

/** Minimum counts from the corpus README table: folder -> [images, read at least]. */
export function readmeCounts(): Map<string, { images: number; atLeast: number | null }> {
  const readme = fs.readFileSync(path.join(corpusDir, 'README.md'), 'utf8');
  const out = new Map<string, { images: number; atLeast: number | null }>();
  for (const line of readme.split('\n')) {
    const m = /^\|\s*([a-z0-9-]+)\s*\|\s*(\d+)\s*\|\s*([^|]+?)\s*\|/.exec(line);
    if (!m) continue;
    const n = /^\d+$/.test(m[3]) ? Number(m[3]) : null;
    out.set(m[1], { images: Number(m[2]), atLeast: n });
  }
  return out;
}

const IMAGE = /\.(png|jpe?g|webp|gif|pgm)$/i;

export function samples(folder: string): Sample[] {
  const dir = path.join(corpusDir, folder);
  const files = fs.readdirSync(dir).filter((f) => IMAGE.test(f)).sort();
  return files.map((file) => {
    const stem = path.join(dir, file.replace(IMAGE, ''));
    const txt = fs.existsSync(stem + '.txt') ? fs.readFileSync(stem + '.txt', 'utf8') : null;
    const bin = fs.existsSync(stem + '.bin') ? fs.readFileSync(stem + '.bin') : null;
    return { folder, file, image: path.join(dir, file), expectedText: txt, expectedBytes: bin };
  });
}

export function folders(): string[] {
  return fs.readdirSync(corpusDir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
}

/** The format a folder's samples are in, as the engine names it. */
export function folderFormat(folder: string): string | null {
  const prefix = folder.replace(/-\d+$/, '');
  return ({ aztec: 'Aztec', datamatrix: 'DataMatrix', maxicode: 'MaxiCode', pdf417: 'PDF417', qrcode: 'QRCode' } as Record<string, string>)[prefix] ?? null;
}
