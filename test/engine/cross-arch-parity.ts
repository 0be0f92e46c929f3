// The arm64 addon must read exactly what the x64 addon reads (and so what the WebAssembly build
// reads: test/engine/wasm-parity.ts, run within test/readrate/readrate.test.ts). Not a mocha file: .ci/arm64-qemu.sh runs it twice,
//   node dist/test/engine/cross-arch-parity.js record DIR [perCategory]   (x64: render, read, save)
//   <arm64 node under qemu> dist/test/engine/cross-arch-parity.js check DIR   (read again, compare)
// because rendering the images under qemu would cost minutes. The planes come from the read-rate
// test set (the first images of every category); both reads run without the time budget, which
// is wall-clock and would cut the emulated run short (see wasm-parity.ts).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { loadAddon } from '../../lib/engine/addon';

const NO_BUDGET = { timeBudgetMs: 600000 };

interface Entry { name: string; width: number; height: number; file: string; reads: unknown }

async function record(dir: string, perCategory: number): Promise<void> {
  const { CATEGORIES, renderSample } = await import('../fixtures/dotcode-render');
  const { TEST_FIRST_SEED } = await import('../../bench/readrate-core');
  fs.mkdirSync(dir, { recursive: true });
  const entries: Entry[] = [];
  for (const cat of CATEGORIES) {
    for (let i = 0; i < perCategory; i++) {
      const s = await renderSample(cat, TEST_FIRST_SEED + i);
      const file = `${entries.length}.grey`;
      fs.writeFileSync(path.join(dir, file), s.grey);
      const reads = loadAddon().readImageSync(s.grey, s.width, s.height, NO_BUDGET);
      entries.push({ name: s.name, width: s.width, height: s.height, file, reads: JSON.parse(JSON.stringify(reads)) });
    }
  }
  fs.writeFileSync(path.join(dir, 'index.json'), JSON.stringify({ arch: process.arch, entries }));
  console.log(`recorded ${entries.length} images on ${process.arch}`);
}

function check(dir: string): void {
  const { arch, entries } = JSON.parse(fs.readFileSync(path.join(dir, 'index.json'), 'utf8')) as { arch: string; entries: Entry[] };
  let symbols = 0;
  for (const e of entries) {
    const grey = new Uint8Array(fs.readFileSync(path.join(dir, e.file)));
    const reads = JSON.parse(JSON.stringify(loadAddon().readImageSync(grey, e.width, e.height, NO_BUDGET)));
    assert.deepStrictEqual(reads, e.reads, `${e.name}: ${process.arch} differs from ${arch}`);
    symbols += (e.reads as unknown[]).length;
  }
  console.log(`${entries.length} images, ${symbols} symbols: ${process.arch} reads exactly what ${arch} read`);
}

const [mode, dir, n] = process.argv.slice(2);
if (mode === 'record' && dir) record(dir, Number(n ?? 2)).catch((e) => { console.error(e); process.exit(1); });
else if (mode === 'check' && dir) check(dir);
else {
  console.error('usage: cross-arch-parity.js record DIR [perCategory] | check DIR');
  process.exit(2);
}
