// Read-rate goals of issue 4 on a reduced, seeded subset of the synthetic benchmark
// (bench/readrate.ts runs the full one). With 20 samples a category, "99%" allows no failure,
// "95%" one and "90%" two. Misreads and false positives are never allowed. These tests fail
// while the detector is short of the goals: that is their job; do not loosen them.
// Exception while the detector is rewritten for issue 11: the categories in FLOOR_CATEGORIES
// must read at least what `readrate.js --record` last recorded for these same 20 samples
// (bench/RESULTS.md, "test floors"), so they catch regressions without failing on the goal.
import { strict as assert } from 'node:assert';

import { CATEGORIES, renderSample, type Category, type Sample } from '../fixtures/dotcode-render';
import {
  allowedFailures, FLOOR_CATEGORIES, GOALS, loadAddon, runAddon, TEST_FIRST_SEED, TEST_SAMPLES, type Addon, type Outcome,
} from '../../bench/readrate-core';
import { recordedFloors } from '../../bench/readrate-results';
import { WasmParity } from '../engine/wasm-parity';
import { dotcodeOptions } from '../../lib/engine/speed';

/** Each sample read as decode() reads a still image (speed 'balanced': its detector budget), as the bench records the floors. */
const STILL = dotcodeOptions('balanced');

const N = TEST_SAMPLES;
const FIRST_SEED = TEST_FIRST_SEED; // apart from the bench's default seeds 1..100, so tests are not tuned on the bench

/** Can a perfect detector read this sample? True when the decoding core reads the printed grid itself. */
export function gridDecodable(addon: Addon, s: Sample): boolean {
  if (!s.truth || !s.expected) return false;
  const r = addon.decodeGrid({ rows: s.truth.rows, cols: s.truth.cols, values: s.truth.printed });
  return !!r && Buffer.from(r.bytes).equals(s.expected);
}

function describeFailures(outs: Array<{ o: Outcome; s: Sample }>): string {
  return outs.slice(0, 6).map(({ o, s }) => `${o.name} got ${JSON.stringify(o.got)}${o.error ? ` error ${o.error}` : ''} ` +
    `expected ${JSON.stringify(o.expected)} params ${JSON.stringify({ ...s.params, pose: undefined, lighting: undefined })}`).join('\n    ');
}

describe('DotCode read rate (synthetic, 20 per category)', function () {
  this.timeout(60000);
  let addon: Addon;
  let parity: WasmParity;
  const payloadMismatches: string[] = [];
  before(() => {
    addon = loadAddon();
    parity = new WasmParity(addon as never);
  });

  const floors = recordedFloors();
  for (const cat of CATEGORIES) {
    const goal = GOALS[cat as Category];
    const floored = FLOOR_CATEGORIES.includes(cat);
    const floor = floors.get(cat);
    const title = goal === null ? `${cat}: no false positives`
      : floored ? `${cat}: reads at least the recorded floor (${floor ? `${floor.read}/${floor.n}` : 'none recorded'}) with no misread`
        : `${cat}: read rate >= ${goal * 100}% with no misread`;
    it(title, async () => {
      const results: Array<{ o: Outcome; s: Sample; ceiling: boolean }> = [];
      for (let i = 0; i < N; i++) {
        const s = await renderSample(cat, FIRST_SEED + i);
        const o = runAddon(addon, s, STILL);
        parity.check(s, i === 0); // the WebAssembly reader on the same image (test/engine/wasm-parity.ts)
        results.push({ o, s, ceiling: s.expected ? gridDecodable(addon, s) : false });
        if (s.matrix) {
          const m = s.matrix;
          const r = addon.decodeGrid({ rows: m.rows, cols: m.cols, values: m.bits });
          const got = r ? Buffer.from(r.bytes).toString('latin1') : null;
          if (got !== s.expectedText) payloadMismatches.push(`${s.name} (${m.encoder} ${m.input}): core read ${JSON.stringify(got)}, expected ${JSON.stringify(s.expectedText)}`);
        }
        // Keep only what the assertions and the messages need (scene frames are large).
        (s as { grey: Uint8Array | null }).grey = null;
      }
      const misreads = results.filter((r) => r.o.misread || r.o.falsePositive);
      assert.equal(misreads.length, 0, `${cat}: ${misreads.length} misread(s)/false positive(s):\n    ${describeFailures(misreads)}`);
      const errors = results.filter((r) => r.o.error);
      assert.equal(errors.length, 0, `${cat}: native errors:\n    ${describeFailures(errors)}`);
      if (goal === null) return;
      const failed = results.filter((r) => !r.o.read);
      if (floored) {
        assert.ok(floor, `${cat}: no floor in bench/RESULTS.md; run node dist/bench/readrate.js --category ${cat} --record`);
        assert.equal(floor.n, N, `${cat}: the floor was recorded over ${floor.n} samples, the test renders ${N}`);
        assert.ok(N - failed.length >= floor.read,
          `${cat}: read ${N - failed.length}/${N}, below the recorded floor ${floor.read}/${floor.n} ` +
          `(${failed.filter((r) => !r.ceiling).length} of the failures are not readable even from their exact grid):\n    ${describeFailures(failed)}`);
        return;
      }
      const allowed = allowedFailures(goal, N);
      // "ceiling": whether the decoding core reads the printed grid itself (a perfect detector).
      assert.ok(failed.length <= allowed,
        `${cat}: read ${N - failed.length}/${N}, ${failed.length} failure(s), at most ${allowed} allowed for ${goal * 100}% ` +
        `(${failed.filter((r) => !r.ceiling).length} of the failures are not readable even from their exact grid):\n    ${describeFailures(failed)}`);
    });
  }

  it('the WebAssembly reader answers exactly as the native reader on every image above (reads, grids, traces)', function () {
    if (!parity.available) {
      console.log('      (skipped: the WebAssembly reader is not built; it needs emscripten)');
      this.skip();
    }
    console.log(`      ${parity.summary()}`);
    assert.ok(parity.totals.images >= CATEGORIES.length * N, `only ${parity.totals.images} images compared`);
    assert.deepEqual(parity.mismatches, []);
  });

  it('every sample rendered above carries the right expected payload (its exact matrix decodes to it)', () => {
    // Filled by the category tests: a wrong expectation (GS1 separators, encoder quirks) would
    // otherwise be blamed on the detector.
    assert.deepEqual(payloadMismatches, []);
  });
});
