// The 79 shared vectors (zint and bwip-js output) through the native addon, all 8 orientations.
import { strict as assert } from 'assert';

import { decodeGrid, gridFromRows, loadVectors, transform, type Vector } from './helpers';

describe('dotcode-core: shared vectors through the addon', () => {
  let vectors: Vector[] = [];
  before(function () {
    vectors = loadVectors(this);
  });

  it('has the 79 vectors', () => assert.equal(vectors.length, 79));

  it('decodes every vector in all 8 orientations to the exact bytes and flags', () => {
    const failures: string[] = [];
    for (const v of vectors) {
      const g = gridFromRows(v.matrix);
      for (let t = 0; t < 8; t++) {
        const s = decodeGrid(transform(g, t));
        if (!s || s.bytes.toString('hex') !== v.expected_hex) { failures.push(`${v.desc} t=${t}`); continue; }
        assert.equal(s.gs1, v.gs1, v.desc);
        assert.deepEqual(s.ecis, v.eci ?? [], v.desc);
        assert.equal(s.readerInit, v.reader_init ?? false, v.desc);
        assert.deepEqual(s.structuredAppend ? [s.structuredAppend.index, s.structuredAppend.count] : undefined, v.structapp, v.desc);
        assert.equal(s.mask, v.mask, v.desc);
        assert.equal(s.ecBudget, v.nd_nc[1], v.desc);
        assert.equal(s.mirrored, t >= 4);
        assert.match(s.symbologyId, /^\]J[0-5]$/);
        if (v.gs1) assert.equal(s.symbologyId, ']J1');
      }
    }
    assert.deepEqual(failures, []);
  });

  it('refuses nonsense grids without throwing', () => {
    assert.equal(decodeGrid({ rows: 10, cols: 10, values: new Float32Array(100).fill(1) }), null);
    assert.equal(decodeGrid({ rows: 11, cols: 14, values: new Float32Array(154) }), null);
    assert.throws(() => decodeGrid({ rows: 11, cols: 14, values: new Float32Array(5) }), /rows\*cols/);
  });
});
