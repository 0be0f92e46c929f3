// The WebAssembly build of the DotCode reader (tools/build-wasm.js) must answer exactly what the
// native addon answers. test/readrate/readrate.test.ts hands every image of the read-rate test
// set (every category, the same 20 seeded samples) to check() as it renders them, so the images
// are rendered once for both purposes: the same symbols with the same bytes, pass names, corners
// (bit for bit) and error-correction figures; the same decodeGrid answers on the exact printed
// grids; the same inspection traces on the first image of each category.
//
// Both run without the time budget (timeBudgetMs 60 s): the budget is wall-clock, so on a busy
// machine it could cut either reader short at a different pass, which is timing, not a
// difference between the builds. Without the .wasm (no emcc) the check is skipped with a notice.
import { isDeepStrictEqual } from 'node:util';
import * as fs from 'node:fs';

import type { Sample } from '../fixtures/dotcode-render';
import { dotcodeWasmPath, wasmReader } from '../../lib/engine/wasm-node';

const NO_BUDGET = { timeBudgetMs: 60000 };

interface Reader {
  readImageSync(g: Uint8Array, w: number, h: number, o?: object): unknown[];
  inspectImageSync(g: Uint8Array, w: number, h: number, o?: object): unknown;
  decodeGrid(grid: object, o?: object): unknown;
}

export class WasmParity {
  readonly available = fs.existsSync(dotcodeWasmPath());
  readonly mismatches: string[] = [];
  readonly totals = { images: 0, symbols: 0, grids: 0, traces: 0, nativeMs: 0, wasmMs: 0 };
  private wasm: Reader | null = null;

  constructor(private readonly native: Reader) {}

  /** Compares both readers on one sample; `trace`: the inspection traces too. */
  check(s: Sample, trace: boolean): void {
    if (!this.available) return;
    this.wasm ??= wasmReader() as unknown as Reader;
    let t0 = performance.now();
    const a = this.native.readImageSync(s.grey, s.width, s.height, NO_BUDGET);
    this.totals.nativeMs += performance.now() - t0;
    t0 = performance.now();
    const b = this.wasm.readImageSync(s.grey, s.width, s.height, NO_BUDGET);
    this.totals.wasmMs += performance.now() - t0;
    if (!isDeepStrictEqual(b, a)) this.mismatches.push(`${s.name}: reads differ`);
    this.totals.images++;
    this.totals.symbols += a.length;
    if (trace) {
      if (!isDeepStrictEqual(this.wasm.inspectImageSync(s.grey, s.width, s.height, NO_BUDGET), this.native.inspectImageSync(s.grey, s.width, s.height, NO_BUDGET))) {
        this.mismatches.push(`${s.name}: traces differ`);
      }
      this.totals.traces++;
    }
    for (const m of [s.truth && { rows: s.truth.rows, cols: s.truth.cols, values: s.truth.printed }, s.matrix && { rows: s.matrix.rows, cols: s.matrix.cols, values: s.matrix.bits }]) {
      if (!m) continue;
      if (!isDeepStrictEqual(this.wasm.decodeGrid(m), this.native.decodeGrid(m))) this.mismatches.push(`${s.name}: decodeGrid differs`);
      this.totals.grids++;
    }
  }

  summary(): string {
    const t = this.totals;
    return `${t.images} images, ${t.symbols} symbols, ${t.grids} grids, ${t.traces} traces compared; ` +
      `detector time native ${t.nativeMs.toFixed(0)} ms, wasm ${t.wasmMs.toFixed(0)} ms (x${(t.wasmMs / t.nativeMs).toFixed(2)})`;
  }
}
