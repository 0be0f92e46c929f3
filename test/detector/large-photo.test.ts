// A large photo in which the DotCode is a small part (a phone's 12 MP view of a whole desk, the
// pack's code at 2-4 px per module): read_dotcodes.cpp reads such a photo again in windows when
// the whole reads nothing (readInWindows). Without the windows the harder passes' allowances run
// out on the clutter in raster order and these read nothing.
import { strict as assert } from 'assert';

import { renderSample, Rng } from '../fixtures/dotcode-render';
import { loadAddon } from '../../lib/engine/addon';

const addon = loadAddon();

const W = 4000;
const H = 3000;

/** A 4000 x 3000 frame tiled with the generator's empty cluttered frames (text, barcodes, dotted textures). */
async function clutteredFrame(): Promise<Uint8Array> {
  const tiles = await Promise.all([1, 2, 3, 4, 5, 6].map((seed) => renderSample('negative', seed)));
  const frame = new Uint8Array(W * H);
  let k = 0;
  for (let y0 = 0; y0 < H; y0 += tiles[0].height) {
    for (let x0 = 0; x0 < W; x0 += tiles[0].width) {
      const t = tiles[k++ % tiles.length];
      for (let y = 0; y < t.height && y0 + y < H; y++) {
        frame.set(t.grey.subarray(y * t.width, y * t.width + Math.min(t.width, W - x0)), (y0 + y) * W + x0);
      }
    }
  }
  return frame;
}

describe('DotCode detector: a small symbol in a large photo', function () {
  this.timeout(120_000);

  it('reads pack codes pasted far from the middle of a 12 MP cluttered frame, corners in place', async function () {
    const background = await clutteredFrame();
    // (the first frame's empty: no false read from the clutter, however long the windows take)
    const empty = addon.readImageSync(background, W, H, { timeBudgetMs: 20_000 });
    assert.deepEqual(empty.map((r) => r.bytes.toString('latin1')), [], 'no symbol in the clutter');
    for (const seed of [1001, 1004]) {
      const s = await renderSample('pack', seed);
      assert.ok(s.expected && s.truth, 'a pack sample with its truth');
      const alone = addon.readImageSync(s.grey, s.width, s.height);
      assert.equal(alone[0]?.bytes.toString('hex'), s.expected.toString('hex'), `${s.name} reads on its own`);
      const rng = new Rng(`large-photo/${seed}`);
      const ox = Math.floor(rng.range(0, W - s.width));
      const oy = Math.floor(rng.range(0, H - s.height));
      const frame = new Uint8Array(background);
      for (let y = 0; y < s.height; y++) frame.set(s.grey.subarray(y * s.width, (y + 1) * s.width), (oy + y) * W + ox);
      // (the budget lifted: this checks what the windows reach, not how fast a loaded machine gets there)
      const res = addon.readImageSync(frame, W, H, { timeBudgetMs: 20_000 });
      assert.deepEqual(res.map((r) => r.bytes.toString('hex')), [s.expected.toString('hex')], `${s.name} at (${ox}, ${oy}) in the frame`);
      const tol = 0.5 * s.truth.pitch + 1;
      s.truth.corners.forEach((t, k) => {
        const got = res[0].corners[k];
        const d = Math.hypot(got.x - (t[0] + ox), got.y - (t[1] + oy));
        assert.ok(d <= tol, `${s.name}: corner ${k} ${d.toFixed(1)} px from the truth`);
      });
    }
  });
});
