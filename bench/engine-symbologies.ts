// Engine timing per symbology over ../shared/corpus/zxing-samples (issue 2, item 7).
// Warm, one process, images decoded one at a time (no queueing in the pool). For every image
// the median of RUNS runs is kept; the table shows the median and p95 of those per-image
// medians, per symbology. Columns:
//   decode   public decode() end to end, no format (DotCode first, then the zxing readers)
//   format   public decode() with --format set to the folder's symbology
//   sync     public decodeSync(), no format
//   grey     sharp: file bytes -> one 8-bit grey plane (in this thread)
//   zxing    the zxing step (lib/engine/zxing readZXing, default speed) on that image, all five
//            formats (in this thread)
// Run: npx tsc -b && node dist/bench/engine-symbologies.js [runs]
import * as fs from 'fs';
import * as os from 'os';
import { close, decode, decodeSync, warmUp, type Format } from '../lib/engine';
import { loadGrey } from '../lib/engine/image';
import { loadZXing, readZXing, ZXING_FORMATS } from '../lib/engine/zxing';
import { folderFormat, folders, samples } from '../test/engine/corpus';

const RUNS = Number(process.argv[2] ?? 5);

function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}
const median = (xs: number[]) => quantile([...xs].sort((a, b) => a - b), 0.5);

async function time(fn: () => unknown): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function main(): Promise<void> {
  await warmUp({ sync: true });
  await loadZXing();
  const columns = ['decode', 'format', 'sync', 'grey', 'zxing'] as const;
  type Col = (typeof columns)[number];
  const perSymbology = new Map<string, { images: number; mp: number[]; cols: Record<Col, number[]> }>();
  const t0 = Date.now();
  for (const folder of folders()) {
    const fmt = folderFormat(folder) ?? 'none (falsepositives)';
    const entry = perSymbology.get(fmt) ?? { images: 0, mp: [], cols: Object.fromEntries(columns.map((c) => [c, []])) as unknown as Record<Col, number[]> };
    perSymbology.set(fmt, entry);
    for (const s of samples(folder)) {
      const bytes = fs.readFileSync(s.image);
      const runs: Record<Col, number[]> = Object.fromEntries(columns.map((c) => [c, []])) as unknown as Record<Col, number[]>;
      const grey = await loadGrey({ kind: 'bytes', bytes });
      for (let r = 0; r < RUNS; r++) {
        runs.decode.push(await time(() => decode(bytes)));
        runs.format.push(folderFormat(folder) ? await time(() => decode(bytes, { format: folderFormat(folder) as Format })) : NaN);
        runs.sync.push(await time(() => decodeSync(bytes)));
        runs.grey.push(await time(() => loadGrey({ kind: 'bytes', bytes })));
        runs.zxing.push(await time(() => readZXing(grey, ZXING_FORMATS, 1)));
      }
      entry.images++;
      entry.mp.push((grey.width * grey.height) / 1e6);
      for (const c of columns) entry.cols[c].push(median(runs[c]));
    }
  }
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const lines: string[] = [];
  lines.push(`Date: ${new Date().toISOString().slice(0, 10)}; machine: ${os.cpus().length} x ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}; ${RUNS} runs per image, median per image; bench wall time ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  lines.push('');
  lines.push('| symbology | images | median MP | ' + columns.map((c) => `${c} median / p95 (ms)`).join(' | ') + ' |');
  lines.push('|---|---|---|' + columns.map(() => '---').join('|') + '|');
  for (const [fmt, e] of perSymbology) {
    const cells = columns.map((c) => {
      const xs = e.cols[c].filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
      return xs.length ? `${quantile(xs, 0.5).toFixed(2)} / ${quantile(xs, 0.95).toFixed(2)}` : 'n/a';
    });
    lines.push(`| ${fmt} | ${e.images} | ${median(e.mp).toFixed(2)} | ${cells.join(' | ')} |`);
  }
  console.log(lines.join('\n'));
  await close();
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
