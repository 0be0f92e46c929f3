// Images for the hostile-client suite, made once per test run.
import sharp from 'sharp';

const made = new Map<string, Promise<Buffer>>();

/**
 * A single-colour PNG of width x height: a few hundred KB that decode to tens of megapixels (a
 * "pixel bomb" under the ~40 MP cap; 7000x5600 is what issue 16 measured).
 */
export function flatPng(width: number, height: number): Promise<Buffer> {
  const k = `${width}x${height}`;
  let p = made.get(k);
  if (!p) {
    p = sharp({ create: { width, height, channels: 3, background: '#f4f4f4' } }).png({ compressionLevel: 9 }).toBuffer();
    made.set(k, p);
  }
  return p;
}
