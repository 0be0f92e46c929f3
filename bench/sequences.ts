// Video sequences through the FrameReader (issue 12): per kind of sequence (test/fixtures/
// dotcode-render/sequence.ts: a glare streak sweeping over one symbol with blur, focus hunting,
// hand shake and rolling exposure; a symbol replaced half-way; two symbols alternating; no
// DotCode at all), how many single frames read alone, how many sequences the FrameReader read by
// their last frame, the median frame of the first read, misreads and false positives; then the
// cost of fusion per 1280x720 frame (the same sequences drawn at that size: the native push's
// tracking + fusion + fused decoding, next to the detector's own time on the same frame).
// Run: npx tsc -b && node dist/bench/sequences.js [--n 100] [--kinds sweep,replaced] [--speed 8] [--record]
import * as os from 'node:os';
import { renderSequence, SEQUENCE_KINDS, type SequenceKind } from '../test/fixtures/dotcode-render';
import { runSequence, type SequenceOutcome } from './sequences-core';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

function median(xs: number[]): number {
  if (!xs.length) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function pct(a: number, b: number): string {
  return b ? `${((100 * a) / b).toFixed(0)}%` : '-';
}

async function main(): Promise<void> {
  const n = Number(arg('n', '100'));
  const first = Number(arg('seed', '1'));
  const kinds = arg('kinds', SEQUENCE_KINDS.join(',')).split(',') as SequenceKind[];
  const speedSeqs = Number(arg('speed', '8'));
  const verbose = process.argv.includes('--verbose');
  const rows: string[] = [];
  rows.push('| kind | sequences | frames | single frames read | sequences a single frame read | read by the last frame (fused) | median frame of first read | misreads | false positives |');
  rows.push('|---|---|---|---|---|---|---|---|---|');
  for (const kind of kinds) {
    const outs: SequenceOutcome[] = [];
    for (let seed = first; seed < first + n; seed++) {
      const o = await runSequence(renderSequence(kind, seed));
      outs.push(o);
      if (verbose) console.log(`${o.name}: frames ${o.frames} single ${o.singleReads} fused ${o.fusedRead} first ${o.firstRead} new ${o.newReports} fusedReports ${o.fusedReports} misreads ${o.misreads.join('; ')} fp ${o.falsePositives}`);
      for (const m of o.misreads) console.log(`MISREAD ${o.name}: ${m}`);
    }
    const frames = outs.reduce((a, o) => a + o.frames, 0);
    const single = outs.reduce((a, o) => a + o.singleReads, 0);
    const withSymbol = kind !== 'empty';
    const firsts = outs.map((o) => o.firstRead).filter((x): x is number => x !== null);
    rows.push(`| ${kind} | ${outs.length} | ${frames} | ${withSymbol ? `${single} (${pct(single, frames)})` : '-'} | ${withSymbol ? pct(outs.filter((o) => o.singleRead).length, outs.length) : '-'} | ` +
      `${withSymbol ? `${outs.filter((o) => o.fusedRead).length} (${pct(outs.filter((o) => o.fusedRead).length, outs.length)})` : '-'} | ${withSymbol ? median(firsts) : '-'} | ` +
      `${outs.reduce((a, o) => a + o.misreads.length, 0)} | ${outs.reduce((a, o) => a + o.falsePositives, 0)} |`);
    console.log(rows[rows.length - 1]);
  }
  console.log(`\n${rows.join('\n')}`);

  if (speedSeqs > 0) {
    // Fusion cost at 1280x720: the push's tracking + fusion + fused decoding next to its detector time.
    const single: number[] = [];
    const det: number[] = [];
    const fuse: number[] = [];
    for (let seed = 1; seed <= speedSeqs; seed++) {
      for (const kind of ['sweep', 'empty'] as const) {
        const o = await runSequence(renderSequence(kind, 1000 + seed, { size: [1280, 720], frames: 12 }));
        single.push(...o.singleMs);
        det.push(...o.detectMs);
        fuse.push(...o.fuseMs);
      }
    }
    const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    console.log(`\n1280x720, ${det.length} frames (load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}):\n` +
      `  single-frame read (readImageSync) median ${median(single).toFixed(2)} ms; the push's detector with the hook median ${median(det).toFixed(2)} ms\n` +
      `  tracking + fusion + fused decoding: median ${median(fuse).toFixed(3)} ms, mean ${mean(fuse).toFixed(3)} ms, p90 ${q(fuse, 0.9).toFixed(3)} ms, max ${Math.max(...fuse).toFixed(3)} ms`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
