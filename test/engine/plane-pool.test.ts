// Grey planes reused between decodes (lib/engine/plane-pool.ts): a plane is kept only when no one
// else can hold it, and decodes running at once never read each other's pixels.
import * as assert from 'assert';
import * as path from 'path';
import { MessageChannel } from 'worker_threads';
import sharp from 'sharp';
import { close, decode, type DecodeResult } from '../../lib/engine';
import { dropPlanes, givePlane, takePlane } from '../../lib/engine/plane-pool';
import { repoRoot } from './corpus';

async function frame(symbol: string | null, left: number): Promise<Buffer> {
  const base = sharp({ create: { width: 1280, height: 720, channels: 3, background: '#eeeeee' } });
  const layers = symbol ? [{ input: path.join(repoRoot, 'examples', symbol), left, top: 120 }] : [];
  return base.composite(layers).jpeg({ quality: 88 }).toBuffer();
}

describe('engine: grey planes reused between decodes', function () {
  this.timeout(120_000);
  beforeEach(dropPlanes);
  after(close);

  it('a plane given back is handed out again; others\' planes, moved and oversized planes are not kept', () => {
    const p = takePlane(1000);
    givePlane(p);
    assert.strictEqual(takePlane(1000), p);
    assert.notStrictEqual(takePlane(1000), p, 'taken once only');

    const foreign = new Uint8Array(1000); // sharp's, a caller's frame: not the pool's to reuse
    givePlane(foreign);
    assert.notStrictEqual(takePlane(1000), foreign);

    const moved = takePlane(1000);
    const { port1 } = new MessageChannel();
    port1.postMessage(moved, [moved.buffer]); // now detached
    port1.close();
    givePlane(moved);
    assert.notStrictEqual(takePlane(1000), moved);

    const huge = takePlane(5 * 1024 * 1024);
    givePlane(huge);
    assert.notStrictEqual(takePlane(huge.byteLength), huge);
  });

  it('keeps at most eight planes, the newest', () => {
    const planes = Array.from({ length: 10 }, () => takePlane(3000));
    for (const p of planes) givePlane(p);
    const back = Array.from({ length: 10 }, () => takePlane(3000));
    assert.deepStrictEqual(back.map((p) => planes.indexOf(p)), [2, 3, 4, 5, 6, 7, 8, 9, -1, -1]);
  });

  it('decodes at once of different JPEG frames each read their own image (DotCode, and zxing on the empty one)', async () => {
    const frames = [await frame('dotcode.png', 300), await frame('gs1-dotcode.png', 600), await frame(null, 0)];
    const alone: DecodeResult[] = [];
    for (const f of frames) alone.push(await decode(f));
    assert.ok(alone[0].ok && alone[1].ok && alone[0].text !== alone[1].text, 'two different symbols');
    assert.strictEqual(alone[2].error, 'no_dotcode_found');
    // eight callers in turn, as the server's requests: each next decode takes a plane another gave back
    for (const format of [undefined, 'DotCode'] as const) {
      await Promise.all(Array.from({ length: 8 }, async (_, caller) => {
        for (let i = 0; i < 9; i++) {
          const k = (caller + i) % 3;
          const r = await decode(frames[k], { format });
          const want = alone[k];
          assert.deepStrictEqual([r.ok, r.text, r.error], [want.ok, want.text, want.error], `caller ${caller} decode ${i} (frame ${k}, format ${format})`);
        }
      }));
    }
  });
});
