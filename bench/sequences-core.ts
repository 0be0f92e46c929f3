// Shared by bench/sequences.ts and test/engine/frame-reader.test.ts: runs one video sequence
// (test/fixtures/dotcode-render/sequence.ts) frame by frame through single-frame decoding and
// through a FrameReader, and scores both: read (the symbol in view reported), misread (any other
// text: a mixed or stale one), false positive (anything on a sequence without a DotCode).
import { FrameReader } from '../lib/engine/frame-reader';
import { loadAddon } from '../lib/engine/addon';
import type { Sequence } from '../test/fixtures/dotcode-render';

export interface SequenceOutcome {
  name: string;
  kind: string;
  frames: number;
  /** Frames read alone (addon.readImageSync, the engine's balanced DotCode read). */
  singleReads: number;
  /** Some single frame read the (first) symbol. */
  singleRead: boolean;
  /** The FrameReader reported every symbol of the sequence by its last frame. */
  fusedRead: boolean;
  /** 1-based frame of the FrameReader's first correct report of the first symbol (null: never). */
  firstRead: number | null;
  misreads: string[];
  falsePositives: number;
  /** Reports with new = true, and those that were right (a symbol's first report since it came into view). */
  newReports: number;
  fusedReports: number;
  /**
   * Per frame (ms): the single-frame read (readImageSync), then within the FrameReader's push the
   * detector with the fusion's hook on, and the tracking + fusion + fused decoding after it.
   */
  singleMs: number[];
  detectMs: number[];
  fuseMs: number[];
}

/**
 * `singleReads: false` skips the comparison read of each frame on its own (singleReads,
 * singleMs stay empty): a test that only checks what the FrameReader reports pays half the time.
 */
export async function runSequence(seq: Sequence, options: { maxFrames?: number; singleReads?: boolean } = {}): Promise<SequenceOutcome> {
  const addon = loadAddon();
  const fr = new FrameReader({ format: 'DotCode', gs1: 'off', maxFrames: options.maxFrames });
  const out: SequenceOutcome = {
    name: seq.name, kind: seq.kind, frames: seq.frames.length, singleReads: 0, singleRead: false, fusedRead: false,
    firstRead: null, misreads: [], falsePositives: 0, newReports: 0, fusedReports: 0, singleMs: [], detectMs: [], fuseMs: [],
  };
  const reported = new Set<string>();
  try {
    for (let k = 0; k < seq.frames.length; k++) {
      const f = seq.frames[k];
      if (options.singleReads !== false) {
        const t0 = performance.now();
        const single = addon.readImageSync(f.grey, f.width, f.height, { maxSymbols: 1 });
        out.singleMs.push(performance.now() - t0);
        const singleText = single.length ? single[0].bytes.toString('latin1') : null;
        if (singleText !== null && singleText === f.inView) {
          out.singleReads++;
          if (singleText === seq.symbols[0]) out.singleRead = true;
        }
      }
      const r = await fr.push({ data: f.grey, width: f.width, height: f.height, channels: 1 });
      const stats = fr.lastFrameStats;
      if (stats) {
        out.detectMs.push(stats.detectMs);
        out.fuseMs.push(stats.fuseMs);
      }
      if (!r.ok) continue;
      if (f.inView === null) {
        out.falsePositives++;
        continue;
      }
      if (r.text !== f.inView) {
        out.misreads.push(`frame ${k + 1}: ${JSON.stringify(r.text)} while ${JSON.stringify(f.inView)} in view`);
        continue;
      }
      if (r.new) out.newReports++;
      if (r.frames_used > 1) out.fusedReports++;
      reported.add(r.text);
      if (out.firstRead === null && r.text === seq.symbols[0]) out.firstRead = k + 1;
    }
  } finally {
    fr.close();
  }
  out.fusedRead = seq.symbols.length > 0 && seq.symbols.every((s) => reported.has(s));
  return out;
}
