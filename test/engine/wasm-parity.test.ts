// The WebAssembly build of the DotCode reader (tools/build-wasm.js) must answer exactly what the
// native addon answers: on every image of the read-rate test set (test/readrate/readrate.test.ts:
// every category, the same 20 seeded samples), the same symbols with the same bytes, pass names,
// corners (bit for bit) and error-correction figures; the same decodeGrid answers on the exact
// printed grids; the same inspection traces on a sample of them.
//
// Both run without the time budget (timeBudgetMs 60 s): the budget is wall-clock, so on a busy
// machine it could cut either reader short at a different pass, which is timing, not a
// difference between the builds. Skipped with a notice where the .wasm is not built (no emcc).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';

import { CATEGORIES, renderSample } from '../fixtures/dotcode-render';
import { loadAddon, TEST_FIRST_SEED, TEST_SAMPLES } from '../../bench/readrate-core';
import { dotcodeWasmPath, wasmReader } from '../../lib/engine/wasm-node';

const NO_BUDGET = { timeBudgetMs: 60000 };

type Reader = {
  readImageSync(g: Uint8Array, w: number, h: number, o?: object): unknown[];
  inspectImageSync(g: Uint8Array, w: number, h: number, o?: object): unknown;
  decodeGrid(grid: object, o?: object): unknown;
};

describe('WebAssembly reader = native reader (read-rate test set)', function () {
  this.timeout(600000);
  let native: Reader;
  let wasm: Reader;
  const totals = { images: 0, symbols: 0, grids: 0, nativeMs: 0, wasmMs: 0 };

  before(function () {
    if (!fs.existsSync(dotcodeWasmPath())) {
      console.log(`      (skipped: ${dotcodeWasmPath()} is not built; it needs emscripten)`);
      this.skip();
    }
    native = loadAddon() as unknown as Reader;
    wasm = wasmReader() as unknown as Reader;
  });

  after(() => {
    if (totals.images) {
      console.log(`      ${totals.images} images, ${totals.symbols} symbols, ${totals.grids} grids identical; ` +
        `detector time native ${totals.nativeMs.toFixed(0)} ms, wasm ${totals.wasmMs.toFixed(0)} ms ` +
        `(x${(totals.wasmMs / totals.nativeMs).toFixed(2)})`);
    }
  });

  for (const cat of CATEGORIES) {
    it(`${cat}: ${TEST_SAMPLES} images give identical reads, grids and (first image) traces`, async () => {
      for (let i = 0; i < TEST_SAMPLES; i++) {
        const s = await renderSample(cat, TEST_FIRST_SEED + i);
        let t0 = performance.now();
        const a = native.readImageSync(s.grey, s.width, s.height, NO_BUDGET);
        totals.nativeMs += performance.now() - t0;
        t0 = performance.now();
        const b = wasm.readImageSync(s.grey, s.width, s.height, NO_BUDGET);
        totals.wasmMs += performance.now() - t0;
        assert.deepStrictEqual(b, a, `${s.name}: the readers differ`);
        totals.images++;
        totals.symbols += a.length;
        if (i === 0) {
          assert.deepStrictEqual(wasm.inspectImageSync(s.grey, s.width, s.height, NO_BUDGET),
            native.inspectImageSync(s.grey, s.width, s.height, NO_BUDGET), `${s.name}: the traces differ`);
        }
        for (const m of [s.truth && { rows: s.truth.rows, cols: s.truth.cols, values: s.truth.printed }, s.matrix && { rows: s.matrix.rows, cols: s.matrix.cols, values: s.matrix.bits }]) {
          if (!m) continue;
          assert.deepStrictEqual(wasm.decodeGrid(m), native.decodeGrid(m), `${s.name}: decodeGrid differs`);
          totals.grids++;
        }
      }
    });
  }
});
