// The shared test data that sits beside the checkout (../shared: the DotCode vectors, the sample
// corpora, GS1's dictionary), as CI has it. A test that reads it is skipped with a printed notice
// where a checkout has none beside it, so `npm test` in a bare clone still runs everything else.
import * as fs from 'node:fs';
import * as path from 'node:path';

import { repoRoot } from './seeded';

/** Where `relative` lies in ../shared (DOTCODE_SHARED_DIR overrides the folder). */
export function sharedPath(relative: string): string {
  return path.join(process.env.DOTCODE_SHARED_DIR ?? path.join(repoRoot, '..', 'shared'), relative);
}

/**
 * In a mocha test or hook: skips it, with a notice, where ../shared/`relative` is absent (in a
 * `before` hook, the whole suite). Returns the path otherwise.
 */
export function skipWithoutShared(ctx: Mocha.Context, relative: string): string {
  const p = sharedPath(relative);
  if (!fs.existsSync(p)) {
    console.log(`    (skipped: ${p} not found; the shared test data sits beside the checkout, as in CI)`);
    ctx.skip();
  }
  return p;
}
