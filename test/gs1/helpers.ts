// Test helpers for the GS1 tests: an independent check-digit routine (so the tests do not trust
// the code under test to build their data), a seeded PRNG, and the dictionary location.
import * as fs from 'fs';
import * as path from 'path';
import { mulberry32 } from '../support/seeded';

/** GS1 mod-10, written differently from lib/gs1 on purpose: weights from the left by parity. */
export function withCheckDigit(body: string): string {
  const digits = body.split('').map(Number);
  const n = digits.length + 1; // length with the check digit
  let sum = 0;
  digits.forEach((d, i) => { sum += d * ((n - i) % 2 === 0 ? 3 : 1); });
  return body + String((10 - (sum % 10)) % 10);
}

/** Replaces the last digit by a wrong one. */
export function breakCheckDigit(full: string): string {
  const last = Number(full[full.length - 1]);
  return full.slice(0, -1) + String((last + 1) % 10);
}

/** Seeded and reproducible (test/support/seeded.ts). */
export const rng = mulberry32;

/** The repository root: the nearest folder up from here whose package.json is dotcode-sdk. */
export function repoRoot(): string {
  let dir = __dirname;
  for (;;) {
    const pj = path.join(dir, 'package.json');
    if (fs.existsSync(pj) && JSON.parse(fs.readFileSync(pj, 'utf8')).name === 'dotcode-sdk') return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new Error('repository root (package.json of dotcode-sdk) not found above ' + __dirname);
    dir = up;
  }
}

