// A large photo in which the DotCode is a small part (a phone's 12 MP view of a whole desk, the
// pack's code at 2-4 px per module): read_dotcodes.cpp reads such a photo again in windows when
// the whole reads nothing (readInWindows). Without the windows the harder passes' allowances run
// out on the clutter in raster order and these read nothing.
import { strict as assert } from 'assert';

import { clutterCollage, pasteGrey, renderSample, Rng } from '../fixtures/dotcode-render';
import { loadAddon } from '../../lib/engine/addon';

const addon = loadAddon();

const W = 4000;
const H = 3000;

describe('DotCode detector: a small symbol in a large photo', function () {
  this.timeout(120_000);

  it('reads pack codes pasted far from the middle of a 12 MP cluttered frame, corners in place', async function () {
    const background = await clutterCollage(W, H);
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
      const frame = pasteGrey(background, W, s.grey, s.width, s.height, ox, oy);
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
