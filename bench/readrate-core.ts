// Shared by bench/readrate.ts and test/readrate/readrate.test.ts: runs one synthetic sample
// through the native detector (the addon, directly) or through the public engine, and scores
// it: read (right payload), misread (any wrong payload), false positive (anything on a negative).
import * as path from 'node:path';
import { packageRoot } from '../lib/package-root';

import type { Category, Sample } from '../test/fixtures/dotcode-render';

export const REPO_ROOT = packageRoot();

/** The goals per category (minimum read rate); null = no read-rate goal (negatives). */
export const GOALS: Record<Category, number | null> = {
  clean: 0.99, rotated: 0.99, perspective: 0.99, inverted: 0.99, mirrored: 0.99,
  small: 0.95, blur: 0.95, noise: 0.95, lighting: 0.95, cluttered: 0.95, curved: 0.95,
  damaged: 0.9,
  // The issue sets no figure for these two; they hold clean-condition symbols with GS1 and
  // long payloads, so we hold them to the 95% bar of the imaging categories.
  gs1: 0.95, long: 0.95,
  negative: null,
  // Issue 11: every synthetic category at least 97%, the real-world scenes included.
  pack: 0.97, 'blur-heavy': 0.97, cylinder: 0.97, 'cylinder-small': 0.97, inkjet: 0.97, 'pack-dark': 0.97,
};

/**
 * Categories the mocha read-rate test holds to the floor recorded in bench/RESULTS.md (by
 * `readrate.js --record`) instead of GOALS, while the detector is being rewritten for them
 * (issue 11). Misreads stay forbidden. Remove a category from here once it meets its goal.
 */
export const FLOOR_CATEGORIES: readonly Category[] = ['pack', 'cylinder', 'pack-dark', 'cylinder-small'];

/** The mocha test's subset: 20 samples a category from seed 1001 (apart from the bench's 1..100). */
export const TEST_SAMPLES = 20;
export const TEST_FIRST_SEED = 1001;

// The addon's types and loader are the SDK's own (one definition, lib/engine/addon.ts).
import { loadAddon, type Addon, type NativeRead, type NativeReadOptions } from '../lib/engine/addon';

export { loadAddon, type Addon, type NativeRead };

export interface EngineModule {
  decodeAll(input: Buffer, options?: { format?: string }): Promise<{ ok: boolean; symbols: Array<{ text: string | null; via: string }>; elapsed_ms: number; error: string | null }>;
  close(): Promise<void>;
  warmUp?(): Promise<void>;
}

/** The public engine (lib/engine) from the compiled build, or null when it is not there yet. */
export function loadEngine(): EngineModule | null {
  try {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const m = require(path.join(REPO_ROOT, 'dist', 'lib', 'engine')) as EngineModule;
    return typeof m.decodeAll === 'function' ? m : null;
  } catch {
    return null;
  }
}

export interface Outcome {
  name: string;
  category: string;
  expected: string | null;
  read: boolean;
  misread: boolean;
  falsePositive: boolean;
  ms: number;
  via: string | null;
  /** Payloads returned (latin1), for failure reports. */
  got: string[];
  error?: string;
}

function score(s: Sample, got: string[], vias: string[], ms: number, error?: string): Outcome {
  const exp = s.expectedText;
  const read = exp !== null && got.includes(exp);
  return {
    name: s.name, category: s.category, expected: exp, read,
    misread: exp !== null && got.some((g) => g !== exp),
    falsePositive: exp === null && got.length > 0,
    ms, via: vias[got.indexOf(exp ?? '')] ?? vias[0] ?? null, got, error,
  };
}

/** Detector alone: the grey buffer straight into readImageSync. Time = the native call. */
export function runAddon(addon: Addon, s: Sample, options?: NativeReadOptions): Outcome {
  const t0 = process.hrtime.bigint();
  let reads: NativeRead[] = [];
  let error: string | undefined;
  try {
    reads = addon.readImageSync(s.grey, s.width, s.height, options) ?? [];
  } catch (e) {
    error = (e as Error).message;
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return score(s, reads.map((r) => Buffer.from(r.bytes).toString('latin1')), reads.map((r) => r.via), ms, error);
}

/** The public engine on the encoded bytes (JPEG/PNG decode included). Time = its elapsed_ms. */
export async function runEngine(engine: EngineModule, s: Sample, encoded: Buffer): Promise<Outcome> {
  const r = await engine.decodeAll(encoded, { format: 'DotCode' });
  // The engine turns bytes into text (ECI-aware); our payloads are ASCII, so text == latin1 bytes.
  const got = r.symbols.map((x) => x.text ?? '');
  const err = r.error && r.error !== 'no_dotcode_found' ? r.error : undefined;
  return score(s, got, r.symbols.map((x) => x.via), r.elapsed_ms, err);
}

export function percentile(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const a = [...xs].sort((x, y) => x - y);
  return a[Math.min(a.length - 1, Math.max(0, Math.ceil(p * a.length) - 1))];
}

export interface Stats {
  category: string;
  n: number;
  read: number;
  misreads: number;
  falsePositives: number;
  errors: number;
  medianMs: number;
  p95Ms: number;
  vias: Record<string, number>;
}

export function summarize(category: string, outs: Outcome[]): Stats {
  const vias: Record<string, number> = {};
  for (const o of outs) if (o.read && o.via) vias[o.via] = (vias[o.via] ?? 0) + 1;
  const ms = outs.map((o) => o.ms);
  return {
    category, n: outs.length, read: outs.filter((o) => o.read).length,
    misreads: outs.filter((o) => o.misread).length, falsePositives: outs.filter((o) => o.falsePositive).length,
    errors: outs.filter((o) => o.error).length,
    medianMs: percentile(ms, 0.5), p95Ms: percentile(ms, 0.95), vias,
  };
}

/** Failures allowed in n samples for a goal: "99% of 20" allows none, "90% of 20" allows two. */
export function allowedFailures(goal: number, n: number): number {
  return Math.floor(n * (1 - goal) + 1e-9);
}
