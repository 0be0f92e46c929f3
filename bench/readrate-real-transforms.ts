// Read rate on the real pack photographs of ../shared/corpus/real-dotcode (issue 11) as other
// cameras would show them: each photo, turned grey by the engine's loadGrey, is transformed in
// memory (bench/camera-transforms.ts) and read by the addon as decodeAll does, with the
// detector's time budget lifted (this bench measures the reader's reach, not its speed).
//
//   node dist/bench/readrate-real-transforms.js [--transforms tuning|held-out|all|NAME,NAME]
//        [--kind pack|print] [--files SUBSTR,SUBSTR] [--budget MS|still] [--thorough] [--out FILE.tsv] [--dump DIR]
//
// Prints, per transform, the reads, the misreads (a text other than the expected one; counted
// apart, must be zero) and the unread files; then the totals of the tuning and the held-out
// conditions, which are reported apart (held-out: never looked at while tuning). --out writes
// one line per (transform, photo) to compare two builds; --dump writes each unread transformed
// image as PNG to DIR (outside the repository: the photos are test data, never part of it).
import { mkdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import sharp from 'sharp';

import { loadGrey } from '../lib/engine/image';
import { dotcodeOptions } from '../lib/engine/speed';
import { Rng } from '../test/fixtures/dotcode-render';
import { walkOptions } from './options';
import { ALL_TRANSFORMS, type CameraTransform, HELD_OUT_TRANSFORMS, TUNING_TRANSFORMS } from './camera-transforms';
import { REPO_ROOT } from './readrate-core';
import { type RealKind, REAL_DIR, REAL_KINDS, type RealOutcome, readRealGrey, realPhotos } from './readrate-real';

interface Args {
  transforms: readonly CameraTransform[];
  kind: RealKind;
  files: string[];
  /** ms of CPU per image, or 'still': what the engine gives a still of the image's size (speed.ts). */
  budgetMs: number | 'still';
  /** --thorough: the detector's thorough allowances (speed 'thorough'). */
  thorough: boolean;
  out: string | null;
  dump: string | null;
}

function pickTransforms(list: string): readonly CameraTransform[] {
  if (list === 'tuning') return TUNING_TRANSFORMS;
  if (list === 'held-out') return HELD_OUT_TRANSFORMS;
  if (list === 'all') return ALL_TRANSFORMS;
  return list.split(',').map((n) => {
    const t = ALL_TRANSFORMS.find((x) => x.name === n);
    if (!t) throw new Error(`unknown transform ${n}; one of tuning, held-out, all, ${ALL_TRANSFORMS.map((x) => x.name).join(', ')}`);
    return t;
  });
}

function parseArgs(argv: string[]): Args {
  const a: Args = { transforms: ALL_TRANSFORMS, kind: 'pack', files: [], budgetMs: 600000, thorough: false, out: null, dump: null };
  walkOptions(argv, (k, v) => {
    if (k === '--transforms') a.transforms = pickTransforms(v());
    else if (k === '--kind') {
      const kind = v();
      if (!(REAL_KINDS as readonly string[]).includes(kind)) throw new Error(`--kind: one of ${REAL_KINDS.join(', ')}`);
      a.kind = kind as RealKind;
    } else if (k === '--files') a.files = v().split(',');
    else if (k === '--budget') {
      const b = v();
      a.budgetMs = b === 'still' ? b : Number(b);
      if (a.budgetMs !== 'still' && !(a.budgetMs >= 0)) throw new Error('--budget: ms of CPU, or still');
    }
    else if (k === '--thorough') a.thorough = true;
    else if (k === '--out') a.out = v();
    else if (k === '--dump') a.dump = path.resolve(v());
    else return false;
    return true;
  });
  if (a.dump && !path.relative(REPO_ROOT, a.dump).startsWith('..')) throw new Error('--dump must be outside the repository');
  return a;
}

async function dumpUnread(dir: string, t: CameraTransform, o: Omit<RealOutcome, 'greyMs'>, g: { data: Uint8Array; width: number; height: number }): Promise<void> {
  const sub = path.join(dir, t.name);
  mkdirSync(sub, { recursive: true });
  await sharp(Buffer.from(g.data), { raw: { width: g.width, height: g.height, channels: 1 } }).png()
    .toFile(path.join(sub, o.photo.file.replace(/\.[a-z]+$/i, '.png')));
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const photos = realPhotos()?.filter((p) => p.kind === args.kind && (!args.files.length || args.files.some((f) => p.file.includes(f))));
  if (!photos) {
    console.log(`real photos: ${REAL_DIR} not found; nothing to measure`);
    return;
  }
  console.log(`DotCode read rate on ${photos.length} real ${args.kind} photographs under ${args.transforms.length} camera transforms ` +
    `(budget ${args.budgetMs === 'still' ? "a still's, by size" : `${args.budgetMs} ms`}${args.thorough ? ', thorough' : ''}); ${os.cpus().length} cores, Node ${process.version}`);
  const greys = await Promise.all(photos.map((p) => loadGrey({ kind: 'path', path: path.join(REAL_DIR, p.file) })));
  const tsv = ['transform\tfile\tread\tmisread\tms\tgot'];
  const totals = new Map<'tuning' | 'held-out', { read: number; n: number; misreads: number }>();
  for (const t of args.transforms) {
    const set = HELD_OUT_TRANSFORMS.includes(t) ? 'held-out' : 'tuning';
    let read = 0;
    let misreads = 0;
    const unread: string[] = [];
    for (const [i, p] of photos.entries()) {
      const g = await t.apply(greys[i], new Rng(`${t.name}/${p.file}`));
      const budget = args.budgetMs === 'still'
        ? dotcodeOptions(args.thorough ? 'thorough' : 'balanced', false, g.width * g.height).timeBudgetMs
        : args.budgetMs;
      const o = readRealGrey(p, g, { timeBudgetMs: budget, thorough: args.thorough });
      if (o.read) read++;
      else unread.push(p.file);
      if (o.misread) {
        misreads++;
        console.log(`MISREAD ${t.name} ${p.file}: expected ${JSON.stringify(p.expected)}, got ${JSON.stringify(o.got)}`);
      }
      if (o.error) console.log(`error ${t.name} ${p.file}: ${o.error}`);
      tsv.push([t.name, p.file, o.read ? 1 : 0, o.misread ? 1 : 0, o.detectMs.toFixed(0), JSON.stringify(o.got)].join('\t'));
      if (args.dump && !o.read) await dumpUnread(args.dump, t, o, g);
    }
    const tot = totals.get(set) ?? { read: 0, n: 0, misreads: 0 };
    totals.set(set, { read: tot.read + read, n: tot.n + photos.length, misreads: tot.misreads + misreads });
    console.log(`${t.name.padEnd(13)} ${String(read).padStart(3)}/${photos.length}  misreads ${misreads}  ${set === 'held-out' ? '(held out) ' : ''}` +
      `${unread.length ? `unread: ${unread.map((f) => f.replace(/\.png$/, '')).join(' ')}` : ''}`);
  }
  for (const [set, t] of totals) console.log(`${set}: ${t.read}/${t.n} read, ${t.misreads} misreads`);
  if (args.out) writeFileSync(args.out, `${tsv.join('\n')}\n`);
}

main().catch((e) => {
  console.error(`readrate-real-transforms: ${(e as Error).message}`);
  process.exit(1);
});
