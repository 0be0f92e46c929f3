// Real photographs (../shared/corpus/real-dotcode, issue 11), decoded exactly as
// `readrate.js --real` does (bench/readrate-real.ts: the engine's grey path, then the addon).
// No misread is ever allowed; the read rate of each kind may not drop below the one recorded
// in bench/RESULTS.md by `readrate.js --real --record` (recording is the one place the floor is
// set). The photos are test data that is not in the repository: without them the test skips.
import { strict as assert } from 'node:assert';

import { readRealPhoto, REAL_DIR, REAL_KINDS, realPhotos, summarizeReal, type RealOutcome } from '../../bench/readrate-real';
import { recordedRealFloors } from '../../bench/readrate-results';

describe('DotCode read rate on real photographs', function () {
  this.timeout(120000);
  const photos = realPhotos();
  const outs: RealOutcome[] = [];

  before(async function () {
    if (!photos) {
      console.log(`    (skipped: ${REAL_DIR} not found; the real photographs are test data kept outside the repository)`);
      this.skip();
    }
    for (const p of photos!) outs.push(await readRealPhoto(p));
  });

  it('no photo gives a wrong text', () => {
    const bad = outs.filter((o) => o.misread);
    assert.deepEqual(bad.map((o) => `${o.photo.file}: expected ${JSON.stringify(o.photo.expected)}, got ${JSON.stringify(o.got)}`), []);
  });

  it('no native error', () => {
    assert.deepEqual(outs.filter((o) => o.error).map((o) => `${o.photo.file}: ${o.error}`), []);
  });

  const floors = recordedRealFloors();
  for (const kind of REAL_KINDS) {
    const f = floors.get(kind);
    it(`${kind}: read rate at least the recorded ${f ? `${f.read}/${f.n}` : '(none recorded)'}`, () => {
      assert.ok(f, `no ${kind} figures in bench/RESULTS.md; run node dist/bench/readrate.js --real --record`);
      const s = summarizeReal(kind, outs);
      assert.ok(s.n > 0, `no ${kind} photos in the manifest`);
      const unread = outs.filter((o) => o.photo.kind === kind && !o.read).map((o) => o.photo.file);
      // Compared as rates: the corpus may grow; the recorded rate is the floor.
      assert.ok(s.read * f.n >= f.read * s.n,
        `${kind}: read ${s.read}/${s.n}, below the recorded ${f.read}/${f.n}; unread: ${unread.slice(0, 12).join(', ')}`);
    });
  }
});
