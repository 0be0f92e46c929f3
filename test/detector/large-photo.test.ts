// A large photo in which the DotCode is a small part (a phone's 12 MP view of a whole desk, the
// pack's code at 2-4 px per module): read_dotcodes.cpp reads such a photo again in windows when
// the whole reads nothing (readInWindows). Without the windows the harder passes' allowances run
// out on the clutter in raster order and these read nothing. The windows are read in two sweeps
// (their first stages, then their deconvolving ones), which the inspection trace shows.
import { strict as assert } from 'assert';

import sharp from 'sharp';

import { clutterCollage, pasteGrey, renderSample, Rng } from '../fixtures/dotcode-render';
import { loadAddon, type NativeTraceWindow } from '../../lib/engine/addon';

const addon = loadAddon();

const W = 4000;
const H = 3000;

/**
 * The windows of a W x H photo read in two sweeps: every window's first stages, the middle ones
 * first, then the deconvolving stages of the same windows in the same order, less those that read
 * a symbol (`reading`: every overlapping window that holds it); the windows cover the frame.
 */
function checkSweeps(windows: NativeTraceWindow[], reading: NativeTraceWindow[]): void {
  const first = windows.filter((w) => !w.deconvolving);
  const second = windows.filter((w) => w.deconvolving);
  assert.ok(first.length >= 12, `${first.length} windows read`);
  assert.deepEqual(windows.slice(0, first.length), first, 'every first stage before any deconvolving one');
  const key = (w: NativeTraceWindow) => `${w.region.x0},${w.region.y0}`;
  assert.deepEqual(second.map(key), first.filter((w) => !reading.includes(w)).map(key), 'the same windows, in the same order');
  const mid = (w: NativeTraceWindow) => Math.hypot((w.region.x0 + w.region.x1 - W) / 2, (w.region.y0 + w.region.y1 - H) / 2);
  first.forEach((w, i) => assert.ok(i === 0 || mid(first[i - 1]) <= mid(w), 'the middle ones first'));
  for (const [x, y] of [[0, 0], [W - 1, 0], [0, H - 1], [W - 1, H - 1], [W / 2, H / 2]]) {
    assert.ok(first.some((w) => w.region.x0 <= x && x < w.region.x1 && w.region.y0 <= y && y < w.region.y1), `(${x}, ${y}) in a window`);
  }
}

describe('DotCode detector: a small symbol in a large photo', function () {
  this.timeout(120_000);

  it('reads pack codes pasted far from the middle of a 12 MP cluttered frame, corners in place', async function () {
    const background = await clutterCollage(W, H);
    // (the first frame's empty: no false read from the clutter, however long the windows take;
    // traced, to see the windows' order)
    const empty = addon.inspectImageSync(background, W, H, { timeBudgetMs: 20_000 });
    assert.deepEqual(empty.results.map((r) => r.bytes.toString('latin1')), [], 'no symbol in the clutter');
    checkSweeps(empty.windows, []);
    // the whole frame's own read ran its deconvolving stages last (traced: the windows' are not)
    const firstStages = empty.passes.filter((p) => !p.deconvolving).length;
    assert.ok(firstStages >= 2 && firstStages < empty.passes.length, `${firstStages} of ${empty.passes.length} passes before deconvolving`);
    assert.ok(empty.passes.slice(firstStages).every((p) => p.deconvolving), 'the deconvolving stages after the first ones');
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
      const traced = addon.inspectImageSync(frame, W, H, { timeBudgetMs: 20_000 });
      const res = traced.results;
      assert.deepEqual(res.map((r) => r.bytes.toString('hex')), [s.expected.toString('hex')], `${s.name} at (${ox}, ${oy}) in the frame`);
      // read by a window's first stages (the peaks stage reads pack codes), in the first sweep,
      // so the deconvolving stages of every window come after it
      const reading = traced.windows.filter((w) => w.read > 0);
      assert.ok(reading.length >= 1 && reading.every((w) => !w.deconvolving), 'read in the first sweep');
      const holds = ({ region: r }: NativeTraceWindow) => res[0].corners.every((c) => c.x >= r.x0 && c.y >= r.y0 && c.x < r.x1 && c.y < r.y1);
      assert.ok(reading.some(holds), 'by a window that holds it');
      checkSweeps(traced.windows, reading);
      const tol = 0.5 * s.truth.pitch + 1;
      s.truth.corners.forEach((t, k) => {
        const got = res[0].corners[k];
        const d = Math.hypot(got.x - (t[0] + ox), got.y - (t[1] + oy));
        assert.ok(d <= tol, `${s.name}: corner ${k} ${d.toFixed(1)} px from the truth`);
      });
    }
  });

  // A phone held close: the pack's code enlarged four times and soft (modules of 8-16 px), which
  // the passes, made for 2-6 px modules, read on the image halved. The halved copy is read between
  // the full size's first stages and its deconvolving ones, which would cost most of the time
  // before it (read_dotcodes.cpp, readAsGiven).
  it("reads a phone's soft close-up on its halved copy before any deconvolving stage of the full size", async function () {
    for (const [category, seed] of [['pack', 1001], ['pack-dark', 1005]] as const) {
      const s = await renderSample(category, seed);
      assert.ok(s.expected, 'a sample with its text');
      const w = s.width * 4;
      const h = s.height * 4;
      const big = await sharp(Buffer.from(s.grey), { raw: { width: s.width, height: s.height, channels: 1 } })
        .resize(w, h, { kernel: 'cubic' }).blur(1.4).extractChannel(0).raw().toBuffer();
      const traced = addon.inspectImageSync(new Uint8Array(big), w, h, { timeBudgetMs: 20_000 });
      assert.deepEqual(traced.results.map((r) => r.bytes.toString('hex')), [s.expected.toString('hex')], `${s.name} at ${w}x${h}`);
      // no grid of the full size's passes decoded: the halved copy read it
      assert.ok(traced.hypotheses.every((g) => g.outcome !== 'decoded'), `${s.name}: not read at full size`);
      assert.ok(traced.passes.length > 1, `${s.name}: the full size's first stages ran`);
      assert.deepEqual(traced.passes.filter((p) => p.deconvolving).map((p) => p.via), [], `${s.name}: no deconvolving stage before the halved copy`);
    }
  });
});
