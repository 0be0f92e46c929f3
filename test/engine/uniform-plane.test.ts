// A plane of one grey level (a covered lens, a blank frame, a header declaring a large image over
// no data) is answered without asking either reader (lib/engine/core.ts readGrey,
// grey-levels.ts uniformPlane): the answer is the one the readers would give, at none of their cost.
import * as assert from 'assert';
import { runJob, type Readers } from '../../lib/engine/core';
import { uniformPlane } from '../../lib/engine/grey-levels';
import type { GreyImage } from '../../lib/engine/image';

describe('engine: blank planes', () => {
  it('uniformPlane: one level at every offset and size, a single other pixel anywhere is seen', () => {
    const backing = new Uint8Array(80);
    let checked = 0;
    for (let offset = 0; offset < 4; offset++)
      for (let n = 1; n <= 40; n++) {
        const d = backing.subarray(offset, offset + n);
        for (const level of [0, 7, 128, 255]) {
          d.fill(level);
          assert.strictEqual(uniformPlane({ data: d, width: n, height: 1 }), true, `offset ${offset}, ${n} px of ${level}`);
          for (let at = 0; at < n && n > 1; at++) {
            d[at] = level ^ 1;
            assert.strictEqual(uniformPlane({ data: d, width: 1, height: n }), false, `offset ${offset}, ${n} px, pixel ${at} differs`);
            d[at] = level;
            checked++;
          }
        }
      }
    assert.ok(checked > 3000);
  });

  it('a uniform plane gets "no_dotcode_found" without either reader; any other plane goes to both', async () => {
    const calls: string[] = [];
    const readersFor = (grey: GreyImage): Readers => ({
      grey: async () => grey,
      dotcode: async () => {
        calls.push('dotcode');
        return [];
      },
      zxing: async () => {
        calls.push('zxing');
        return { error: null, symbols: [] };
      },
    });
    const job = { input: { kind: 'bytes' as const, bytes: new Uint8Array(0) }, gs1: 'auto' as const, speed: 'balanced' as const, all: false };
    for (const speed of ['balanced', 'video'] as const) {
      calls.length = 0;
      const blank = { data: new Uint8Array(640 * 480).fill(200), width: 640, height: 480 };
      assert.deepStrictEqual(await runJob({ ...job, speed }, readersFor(blank)), { error: 'no_dotcode_found', symbols: [] });
      assert.deepStrictEqual(calls, [], `${speed}: a reader was asked about a blank plane`);
      const speck = { data: new Uint8Array(640 * 480).fill(200), width: 640, height: 480 };
      speck.data[640 * 240 + 320] = 10;
      assert.deepStrictEqual(await runJob({ ...job, speed }, readersFor(speck)), { error: 'no_dotcode_found', symbols: [] });
      // (balanced without a format asks each twice: fast pass, plain pass, harder passes, ladder; core.ts readFirst)
      assert.deepStrictEqual([...new Set(calls)].sort(), ['dotcode', 'zxing'], `${speed}: both readers for a plane with one dark pixel`);
    }
  });
});
