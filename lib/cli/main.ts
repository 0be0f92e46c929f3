// The `dotcode` command (DESIGN.md section 6). `decode` and `inspect` live here; `serve` and `admin` belong to
// the server package, which bin/dotcode.js hands them to when it is installed.
// main() returns the exit code instead of exiting, so tests can call it in-process.
import {
  close, decode, inspect, FORMATS, GS1_MODES, isSpeed, SPEEDS, type DecodeResult, type Format, type Gs1Mode, type InspectReport, type Speed,
} from '../engine';
import { version } from '../version';
import { Progress } from './progress';

export const EXIT_OK = 0;
export const EXIT_SOME_UNREAD = 1;
export const EXIT_USAGE = 2;

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
}

const USAGE = `Usage:
  dotcode decode FILE... [--format F] [--gs1 auto|always|off] [--json]
  dotcode inspect IMAGE --out DIR [--format DotCode] [--speed S]
  dotcode serve [--port 8080] [--host 127.0.0.1] [--data DIR] [--redis URL] [--tls-cert F --tls-key F]
  dotcode admin <init|customer|license|apikey|stamp> ...
  dotcode --help | --version

decode reads DotCode, QR Code, Data Matrix, PDF417, Aztec and MaxiCode from PNG, JPEG or WebP
files (DotCode first, then the others; --format restricts it to one).
  --format F   one of: ${FORMATS.join(', ')}
  --gs1 MODE   auto (default): parse GS1 payloads; always: always try; off: never
  --speed S    balanced (default); video: one cheap pass per reader (camera frames);
               thorough: more passes when the usual ones find nothing
  --json       one JSON line per file: the decode result plus "file"
Exit status: 0 every file read, 1 some file not read, 2 usage error.

inspect shows why a DotCode does or does not read: it writes into DIR what each stage of the
DotCode detector saw (dots.png, clusters.png, lattice-N.png, grid-N.png, hypotheses.png) and
report.txt / report.json, and prints the verdict. It traces the read decode makes at --speed S
(balanced by default): the same passes and time budget.
Exit status: 0 a DotCode was read, 1 none was, 2 usage error or an image that cannot be loaded.`;

class UsageError extends Error {}

export async function main(argv: string[], io: Io = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
        io.stderr.write(`${USAGE}\n`);
        return EXIT_USAGE;
      case '-h':
      case '--help':
      case 'help':
        io.stdout.write(`${USAGE}\n`);
        return EXIT_OK;
      case '-V':
      case '--version':
      case 'version':
        io.stdout.write(`${version}\n`);
        return EXIT_OK;
      case 'decode':
        return await runDecode(rest, io);
      case 'inspect':
        return await runInspect(rest, io);
      case 'serve':
      case 'admin':
        return serverMissing(command, io);
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`dotcode: ${e.message}\nRun "dotcode --help" for usage.\n`);
      return EXIT_USAGE;
    }
    throw e;
  }
}

/**
 * One walk over a command's arguments, shared by the commands: FILE arguments (and `-`, and
 * everything after `--`) go to onFile; options, as `--name value` or `--name=value`, go to
 * onOption with a function that takes their value (and says so when it is missing) and whether
 * one was given inline.
 */
function walkArgs(args: string[], onFile: (file: string) => void,
  onOption: (name: string, value: () => string, inline: boolean, arg: string) => void): void {
  let optionsDone = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (optionsDone || a === '-' || !a.startsWith('-')) {
      onFile(a);
      continue;
    }
    if (a === '--') { optionsDone = true; continue; }
    const eq = a.indexOf('=');
    const name = eq > 0 ? a.slice(0, eq) : a;
    onOption(name, () => {
      if (eq > 0) return a.slice(eq + 1);
      const v = args[++i];
      if (v === undefined) throw new UsageError(`${name} needs a value`);
      return v;
    }, eq > 0, a);
  }
}

interface DecodeArgs { files: string[]; format?: Format; gs1: Gs1Mode; speed?: Speed; json: boolean }

export function parseDecodeArgs(args: string[]): DecodeArgs {
  const out: DecodeArgs = { files: [], gs1: 'auto', json: false };
  walkArgs(args, (f) => out.files.push(f), (name, value, inline, a) => {
    switch (name) {
      case '--json':
        if (inline) throw new UsageError('--json takes no value');
        out.json = true;
        break;
      case '--format': {
        const v = value();
        // The SPEC's spelling, accepted in any letter case (qrcode, QRCODE -> QRCode).
        const f = FORMATS.find((x) => x.toLowerCase() === v.toLowerCase());
        if (!f) throw new UsageError(`unknown --format "${v}" (one of: ${FORMATS.join(', ')})`);
        out.format = f;
        break;
      }
      case '--gs1': {
        const v = value();
        if (!(GS1_MODES as readonly string[]).includes(v)) throw new UsageError(`unknown --gs1 "${v}" (one of: ${GS1_MODES.join(', ')})`);
        out.gs1 = v as Gs1Mode;
        break;
      }
      case '--speed':
        out.speed = speedArg(value());
        break;
      default:
        throw new UsageError(`unknown option "${a}"`);
    }
  });
  if (out.files.length === 0) throw new UsageError('decode needs at least one FILE');
  return out;
}

/** Why a file could not be read, in words, for the human output and stderr. */
function explain(error: string, file: string): string {
  switch (error) {
    case 'decode_error:file_not_found': return `${file}: no such file`;
    case 'decode_error:not_a_file': return `${file}: is a directory, not an image file`;
    case 'decode_error:permission_denied': return `${file}: permission denied`;
    case 'decode_error:unsupported_format': return `${file}: not a PNG, JPEG or WebP image`;
    case 'decode_error:empty_input': return `${file}: the file is empty`;
    case 'decode_error:image_too_large': return `${file}: image too large (over about 40 megapixels)`;
    case 'decode_error:unreadable_image': return `${file}: the image data is damaged or cannot be decoded`;
    case 'no_dotcode_found': return `${file}: no code found`;
    default: return `${file}: ${error}`;
  }
}

/** Control characters (a GS1 group separator, CR/LF) shown as escapes so one read is one line. */
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, (c) => (c === '\u001d' ? '<GS>' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
}

function human(file: string, r: DecodeResult): string {
  if (!r.ok) return `${explain(r.error ?? 'no_dotcode_found', file)} (${r.error})\n`;
  let s = `${file}: ${r.format}: ${printable(r.text ?? '')}\n`;
  if (r.gs1?.is_gs1) {
    for (const el of r.gs1.elements) s += `  (${el.ai}) ${el.label}: ${el.formatted ?? el.value}${el.formatted ? ` [${el.value}]` : ''}\n`;
    for (const er of r.gs1.errors) s += `  GS1 problem${er.ai ? ` at AI ${er.ai}` : ''}: ${er.message}\n`;
  }
  return s;
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function runDecode(args: string[], io: Io): Promise<number> {
  const opts = parseDecodeArgs(args);
  const progress = !opts.json && io.stderr.isTTY && opts.files.length >= 8 ? new Progress(io.stderr, opts.files.length) : null;
  // Decode ahead in parallel (the engine's worker pool), print strictly in the order given.
  const window = 8;
  const pending: Promise<DecodeResult>[] = [];
  const start = (i: number) => {
    const f = opts.files[i];
    const input = f === '-' ? readStdin() : Promise.resolve(f);
    pending[i] = input.then((x) => decode(x, { format: opts.format, gs1: opts.gs1, speed: opts.speed }));
  };
  let unread = 0;
  try {
    for (let i = 0; i < Math.min(window, opts.files.length); i++) start(i);
    for (let i = 0; i < opts.files.length; i++) {
      const r = await pending[i];
      if (i + window < opts.files.length) start(i + window);
      const file = opts.files[i];
      if (!r.ok) unread++;
      progress?.clear();
      if (opts.json) {
        io.stdout.write(`${JSON.stringify({ file, ...r })}\n`);
        // A file that could not be opened or is not an image is worth a line on stderr too.
        if (r.error?.startsWith('decode_error:')) io.stderr.write(`dotcode: ${explain(r.error, file)}\n`);
      } else if (r.ok) {
        io.stdout.write(human(file, r));
      } else {
        io.stderr.write(`dotcode: ${human(file, r)}`);
      }
      progress?.update(i + 1);
    }
  } finally {
    progress?.clear();
    await close();
  }
  return unread ? EXIT_SOME_UNREAD : EXIT_OK;
}

function speedArg(v: string): Speed {
  if (!isSpeed(v)) throw new UsageError(`unknown --speed "${v}" (one of: ${SPEEDS.join(', ')})`);
  return v;
}

interface InspectArgs { image: string; out: string; speed?: Speed }

export function parseInspectArgs(args: string[]): InspectArgs {
  const files: string[] = [];
  let out: string | undefined;
  let speed: Speed | undefined;
  walkArgs(args, (f) => files.push(f), (name, value, _inline, a) => {
    switch (name) {
      case '--out':
        out = value();
        if (!out) throw new UsageError('--out needs a folder');
        break;
      case '--format': {
        // Only the DotCode detector has stages to show (DESIGN.md 6 lists --format DotCode).
        const v = value();
        if (v.toLowerCase() !== 'dotcode') throw new UsageError(`inspect traces the DotCode reader only, not --format "${v}"`);
        break;
      }
      case '--speed':
        speed = speedArg(value());
        break;
      default:
        throw new UsageError(`unknown option "${a}"`);
    }
  });
  if (files.length !== 1) throw new UsageError(files.length ? 'inspect takes one IMAGE' : 'inspect needs an IMAGE');
  if (out === undefined) throw new UsageError('inspect needs --out DIR (the folder for the pictures and the report)');
  return { image: files[0], out, speed };
}

/** The counts of each stage on one line: how far the detector got, before the verdict says why. */
function stageCounts(r: InspectReport): string {
  const lattices = r.passes.flatMap((p) => p.lattices);
  const sampled = lattices.filter((l) => l.outcome === 'sampled').length;
  const decoded = r.hypotheses.filter((h) => h.outcome === 'decoded').length;
  const sum = (f: (p: InspectReport['passes'][number]) => number) => r.passes.reduce((n, p) => n + f(p), 0);
  const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  return `${count(r.passes.length, 'pass', 'passes')}, ${count(sum((p) => p.candidates), 'dot candidate')}, ${count(sum((p) => p.clusters.length), 'cluster')}, ` +
    `${count(lattices.length, 'lattice fit')} (${sampled} sampled), ${count(r.hypotheses.length, 'grid')} tried (${decoded} decoded)`;
}

async function runInspect(args: string[], io: Io): Promise<number> {
  const opts = parseInspectArgs(args);
  const input = opts.image === '-' ? await readStdin() : opts.image;
  let report: InspectReport;
  try {
    report = await inspect(input, { out: opts.out, speed: opts.speed });
  } catch (e) {
    // The image was read but the folder could not be written: nothing to show the user.
    io.stderr.write(`dotcode: cannot write ${opts.out}: ${(e as Error).message}\n`);
    return EXIT_USAGE;
  } finally {
    await close();
  }
  if (report.error) {
    io.stderr.write(`dotcode: ${explain(report.error, opts.image)} (${report.error})\n`);
    return EXIT_USAGE;
  }
  let s = `${opts.image}: ${report.image!.width}x${report.image!.height}\n`;
  s += `  ${stageCounts(report)}\n`;
  s += `  verdict: ${report.verdict}\n`;
  for (const r of report.results) s += `  read: ${printable(r.text)}\n`;
  s += `  wrote ${report.files.length} files to ${report.out} (start with report.txt)\n`;
  io.stdout.write(s);
  return report.ok ? EXIT_OK : EXIT_SOME_UNREAD;
}

/**
 * `serve` and `admin` are the server package's (bin/dotcode.js hands them to it when it is
 * installed); reaching here means it is not: the SDK package ships the decoder only.
 */
function serverMissing(command: 'serve' | 'admin', io: Io): number {
  io.stderr.write(`dotcode ${command}: the Cloud API server is not part of this installation (the dotcode-sdk ` +
    `package ships the decoder only). Run it from a checkout of the full project after "npm ci".\n`);
  return EXIT_USAGE;
}
