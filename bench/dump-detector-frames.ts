// Writes a fixed reference set of greyscale images as binary PGM files for
// bench/native/bench_detector_frames.cpp (callgrind instruction counts, wall-time medians outside
// Node, and the detector's results of two builds diffed on the same images):
//   frame720-{with,without}-<seed>.pgm   the readrate bench's speed frames (renderFrame720)
//   <category>-<seed>.pgm                 renderSample(category, seed) for every category
//   real-<file>.pgm                       the photos of ../shared/corpus/real-dotcode (loadGrey)
// Run: npx tsc -p tsconfig.json && node dist/bench/dump-detector-frames.js DIR [perCategory=12] [frames=5]
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { loadGrey } from '../lib/engine/image';
import { CATEGORIES, renderFrame720, renderSample } from '../test/fixtures/dotcode-render';
import { REAL_DIR, realPhotos } from './readrate-real';

function writePgm(file: string, grey: Uint8Array, width: number, height: number): void {
  const header = Buffer.from(`P5\n${width} ${height}\n255\n`, 'latin1');
  writeFileSync(file, Buffer.concat([header, Buffer.from(grey.buffer, grey.byteOffset, width * height)]));
}

async function main(): Promise<void> {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: dump-detector-frames.js DIR [perCategory=12] [frames=5]');
  const perCategory = Number(process.argv[3] ?? 12);
  const frames = Number(process.argv[4] ?? 5);
  mkdirSync(dir, { recursive: true });
  let written = 0;
  for (const withSymbol of [true, false]) {
    for (let seed = 1; seed <= frames; seed++) {
      const s = await renderFrame720(withSymbol, seed);
      writePgm(path.join(dir, `frame720-${withSymbol ? 'with' : 'without'}-${seed}.pgm`), s.grey, s.width, s.height);
      written++;
    }
  }
  for (const cat of CATEGORIES) {
    for (let seed = 1; seed <= perCategory; seed++) {
      const s = await renderSample(cat, seed);
      writePgm(path.join(dir, `${cat}-${seed}.pgm`), s.grey, s.width, s.height);
      written++;
    }
  }
  for (const photo of realPhotos() ?? []) {
    const g = await loadGrey({ kind: 'path', path: path.join(REAL_DIR, photo.file) });
    writePgm(path.join(dir, `real-${photo.file.replace(/[/\\]/g, '-').replace(/\.\w+$/, '')}.pgm`), g.data, g.width, g.height);
    written++;
  }
  console.log(`${written} images written to ${dir}`);
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
