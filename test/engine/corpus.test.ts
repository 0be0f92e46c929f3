// Proof against zxing-cpp's own sample suite (issue 2, item 5): every folder of
// ../shared/corpus/zxing-samples through the public decode(), at least the README's counts with
// exactly the expected text (.txt) or bytes (.bin), and nothing at all from the two
// falsepositives folders (from DotCode neither).
import * as assert from 'assert';
import * as fs from 'fs';
import { close, decode, decodeAll } from '../../lib/engine';
import { skipWithoutShared } from '../support/shared-data';
import { corpusDir, folderFormat, folders, readmeCounts, samples } from './corpus';

describe('engine: zxing-samples corpus', function () {
  this.timeout(120_000);
  after(() => close());

  before(function () {
    skipWithoutShared(this, 'corpus/zxing-samples');
  });

  it('the corpus is there', () => {
    assert.ok(fs.existsSync(corpusDir), `corpus missing at ${corpusDir}`);
    const counts = readmeCounts();
    assert.ok(counts.size >= 18, 'README table not parsed');
    for (const f of folders()) assert.ok(counts.has(f), `folder ${f} has no row in the README`);
  });

  for (const folder of fs.existsSync(corpusDir) ? folders() : []) {
    const expected = readmeCounts().get(folder)!;
    if (expected.atLeast === null) {
      it(`${folder}: no symbol of any format in ${expected.images} images`, async () => {
        const list = samples(folder);
        assert.strictEqual(list.length, expected.images);
        const found = await Promise.all(list.map(async (s) => ({ s, r: await decodeAll(s.image) })));
        const hits = found.filter((x) => x.r.symbols.length > 0 || x.r.error !== 'no_dotcode_found');
        assert.deepStrictEqual(hits.map((x) => `${x.s.file}: ${x.r.error ?? x.r.symbols.map((y) => `${y.format} ${JSON.stringify(y.text)}`).join(', ')}`), []);
      });
    } else {
      it(`${folder}: at least ${expected.atLeast} of ${expected.images} read exactly`, async () => {
        const list = samples(folder);
        assert.strictEqual(list.length, expected.images);
        const misses: string[] = [];
        let good = 0;
        await Promise.all(list.map(async (s) => {
          const r = await decode(s.image);
          let right = r.ok && r.format === folderFormat(folder);
          if (right && s.expectedBytes) {
            // .bin samples: compare the payload bytes, which decode() does not return; decodeAll does.
            const all = await decodeAll(s.image, { format: r.format! });
            right = all.symbols.some((y) => y.bytes.equals(s.expectedBytes!));
          } else if (right) {
            right = r.text === s.expectedText;
          }
          if (right) good++;
          else misses.push(`${s.file}: ${r.ok ? `${r.format} ${JSON.stringify(r.text).slice(0, 60)}` : r.error}`);
        }));
        assert.ok(good >= expected.atLeast!, `${good} read, ${expected.atLeast} needed; misses:\n${misses.join('\n')}`);
      });
    }
  }
});
