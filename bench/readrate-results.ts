// bench/RESULTS.md sections owned by the read-rate bench, written by `readrate.js --record` and
// read back by the mocha tests: recording is the one place a floor is set (issue 11).
//   readrate-floors: the mocha subset's reads for the categories in FLOOR_CATEGORIES;
//   readrate-real:   the real photographs, per kind.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

import { REPO_ROOT } from './readrate-core';

export const RESULTS_FILE = path.join(REPO_ROOT, 'bench', 'RESULTS.md');

/** Replaces the text between `<!-- name:begin -->` and `<!-- name:end -->` (appends it when absent). */
export function writeSection(name: string, body: string, file = RESULTS_FILE): void {
  const section = `<!-- ${name}:begin -->\n${body.trimEnd()}\n<!-- ${name}:end -->`;
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n';
  const re = new RegExp(`<!-- ${name}:begin -->[\\s\\S]*?<!-- ${name}:end -->`);
  text = re.test(text) ? text.replace(re, () => section) : `${text.trimEnd()}\n\n${section}\n`;
  writeFileSync(file, text);
}

/** The body of a section, or null when RESULTS.md has none. */
export function readSection(name: string, file = RESULTS_FILE): string | null {
  if (!existsSync(file)) return null;
  const m = new RegExp(`<!-- ${name}:begin -->([\\s\\S]*?)<!-- ${name}:end -->`).exec(readFileSync(file, 'utf8'));
  return m ? m[1] : null;
}

/**
 * Table rows of a section keyed by their first cell, with every `k/n` fraction found in the
 * column `col` (0 = first cell): `| pack | >= 97% | 3/20 | ...` -> pack: {read: 3, n: 20}.
 */
export function parseFractions(body: string, col: number): Map<string, { read: number; n: number }> {
  const out = new Map<string, { read: number; n: number }>();
  for (const line of body.split('\n')) {
    if (!line.startsWith('| ') || line.startsWith('|---')) continue;
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    const m = /^(\d+)\/(\d+)/.exec(cells[col] ?? '');
    if (m) out.set(cells[0], { read: Number(m[1]), n: Number(m[2]) });
  }
  return out;
}

/** Keeps the rows of an existing table whose key is not being rewritten (a partial --record run). */
export function keptRows(body: string | null, rewritten: Set<string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of (body ?? '').split('\n')) {
    if (!line.startsWith('| ') || line.startsWith('|---')) continue;
    const key = line.split('|')[1].trim();
    if (!rewritten.has(key)) out.set(key, line);
  }
  return out;
}

export const FLOORS_SECTION = 'readrate-floors';
export const REAL_SECTION = 'readrate-real';

/** Column of the floors table that holds the mocha subset's reads (`k/20`). */
export const FLOORS_READ_COLUMN = 2;
/** Column of the real-photo table that holds the reads (`k/n`). */
export const REAL_READ_COLUMN = 2;

/** Floors for the mocha test: category -> reads of its 20 samples when last recorded. */
export function recordedFloors(file = RESULTS_FILE): Map<string, { read: number; n: number }> {
  const body = readSection(FLOORS_SECTION, file);
  return body ? parseFractions(body, FLOORS_READ_COLUMN) : new Map();
}

/** Floors for the real-photo test: kind -> reads of the corpus when last recorded. */
export function recordedRealFloors(file = RESULTS_FILE): Map<string, { read: number; n: number }> {
  const body = readSection(REAL_SECTION, file);
  return body ? parseFractions(body, REAL_READ_COLUMN) : new Map();
}
