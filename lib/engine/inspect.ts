// Why a DotCode does or does not read: runs the native reader with its trace on (inspectImageSync:
// the same read as decode's, plus what each detector stage saw), folds the trace into a report,
// and with `out` writes the pictures (inspect-draw.ts) and report.txt / report.json
// (inspect-report.ts) into a folder. Used by `dotcode inspect` and by DecodeOptions.debugDir.
import { promises as fsp } from 'fs';
import * as path from 'path';
import { loadAddon, type NativeInspection } from './addon';
import { loadGrey, type GreyImage, type WireInput } from './image';
import { loadError, nativeError } from './errors';
import { drawClusters, drawDots, drawGrid, drawHypotheses, drawLattice } from './inspect-draw';
import { buildReport, reportText, failedReport } from './inspect-report';
import { dotcodeOptions } from './speed';
import { DEFAULT_SPEED, type ImageInput, type InspectOptions, type InspectReport } from './types';

/** How the report names its input: the path, or what kind of data it was given. */
export function describeInput(input: ImageInput): string {
  if (typeof input === 'string') return input;
  if (input instanceof Uint8Array || input instanceof ArrayBuffer) return '(image bytes)';
  return '(raw frame)';
}

/**
 * Inspects an input already normalised the way decode() does it (index.ts prepare()), so the
 * grey plane traced is exactly the one decode reads. Never rejects for a bad image (the report
 * carries the error); rejects only when `out` cannot be written.
 */
export async function inspectPrepared(input: WireInput | { error: string }, options: InspectOptions, source: string): Promise<InspectReport> {
  if ('error' in input) return failedReport(input.error);
  let grey: GreyImage;
  try {
    grey = await loadGrey(input);
  } catch (e) {
    return failedReport(loadError(e));
  }
  let trace: NativeInspection;
  try {
    // The same maxSymbols, passes and time budget as decode()/decodeAll() (core.ts runJob), so the
    // trace is of their read.
    const dotcode = dotcodeOptions(options.speed ?? DEFAULT_SPEED, false, grey.width * grey.height);
    trace = loadAddon().inspectImageSync(grey.data, grey.width, grey.height, { ...dotcode, maxSymbols: options.all ? 64 : 1 });
  } catch (e) {
    return failedReport(nativeError(e), 'the DotCode reader failed');
  }
  const report = buildReport(trace, grey.width, grey.height);
  if (options.out !== undefined) await writeInspection(options.out, grey, trace, report, source);
  return report;
}

/** Pictures of an earlier inspection in the same folder would be mistaken for this one's. */
const NUMBERED_PICTURE = /^(lattice|grid)-\d+\.png$/;

async function writeInspection(dir: string, grey: GreyImage, trace: NativeInspection, report: InspectReport, source: string): Promise<void> {
  await fsp.mkdir(dir, { recursive: true });
  for (const name of await fsp.readdir(dir)) {
    if (NUMBERED_PICTURE.test(name)) await fsp.rm(path.join(dir, name), { force: true });
  }
  const files: string[] = [];
  const put = async (name: string, data: Buffer | string) => {
    await fsp.writeFile(path.join(dir, name), data);
    files.push(name);
  };
  // One picture at a time: a photo's whole-image overlays are a few megapixels each.
  await put('dots.png', await drawDots(grey, trace, report));
  await put('clusters.png', await drawClusters(grey, trace, report));
  for (const [pi, pass] of report.passes.entries()) {
    for (const [li, lattice] of pass.lattices.entries()) {
      if (lattice.file) await put(lattice.file, await drawLattice(grey, trace.passes[pi], pass.id, trace.passes[pi].lattices[li], lattice.id));
    }
  }
  for (const [i, h] of report.hypotheses.entries()) {
    if (!h.file) continue;
    const native = trace.hypotheses[i];
    const pass = report.passes[h.pass - 1];
    const lattice = trace.passes[native.pass]?.lattices[native.lattice];
    await put(h.file, await drawGrid(native, lattice, h.id, h.lattice, `pass ${h.pass} ${pass?.via ?? '?'}`, h.erasures));
  }
  await put('hypotheses.png', await drawHypotheses(grey, trace, report));
  report.out = path.resolve(dir);
  report.files = [...files, 'report.txt', 'report.json'];
  await put('report.txt', reportText(report, source));
  await put('report.json', `${JSON.stringify(report, null, 2)}\n`);
}
