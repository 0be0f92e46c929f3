// Reading DotCode from camera frames together (issue 12; docs/engine.md "Video: FrameReader").
// Each push reads the frame as decode() would, and the native video fusion
// (native/detector/frame_fusion.h) tracks every DotCode lattice from frame to frame and decodes
// the presence values fused over the frames: a symbol that no single frame shows whole (a glare
// streak sliding over it, blur that comes and goes) is read from the frames together. The other
// five symbologies are read frame by frame (zxing has no fusion). Each answer is the SPEC 2.1
// result plus `frames_used` and `new` (the first report of a symbol since it came into view).
import { fromDotCode, type SymbolAnswer } from './core';
import { toSymbol } from './dotcode';
import { loadAddon, type Addon, type NativeFrameFusion, type NativeFramePush } from './addon';
import { loadGrey, type GreyImage } from './image';
import { decodeError, loadError, nativeError } from './errors';
import { prepare } from './prepare';
import { dotcodeOptions } from './speed';
import { DEFAULT_SPEED, FORMATS, GS1_MODES, isSpeed, type DecodeResult, type Format, type Gs1Mode, type ImageInput, type Speed } from './types';
import type { ZXingFormat } from './zxing';

export interface FrameReaderOptions {
  /** Read only this symbology; default: DotCode (fused over frames) first, then the other five. */
  format?: Format;
  gs1?: Gs1Mode;
  /** Frames a symbol's track remembers (default 12): bounds the memory and the fused window. */
  maxFrames?: number;
  /** `balanced` (default) or `video` (the detector's fast pass only; cheaper, fewer lattices to fuse). */
  speed?: Speed;
  /**
   * Frames without a sight of a symbol after which it has left the view (default 5): its next
   * report is `new` again. A blurred frame or two in between does not make a symbol new.
   */
  leaveAfter?: number;
}

/** SPEC 2.1 plus what the frames add. */
export interface FrameResult extends DecodeResult {
  /** 1 when this frame alone read the symbol; more when the values of that many frames were fused. 0 when nothing was read. */
  frames_used: number;
  /** True the first time a symbol is reported since it came into view. */
  new: boolean;
}

/** Timing of the last push (bench/sequences.ts): the detector alone, and tracking + fusion. */
export interface FrameStats {
  detectMs: number;
  fuseMs: number;
}

/** The zxing step for a grey frame (index.ts owns the worker pool); set by index.ts. */
export type OtherReaders = (grey: GreyImage, format: ZXingFormat | undefined, gs1: Gs1Mode, speed: Speed) => Promise<{ error: string | null; symbols: SymbolAnswer[] }>;
let otherReaders: OtherReaders | null = null;
export function setOtherReaders(f: OtherReaders): void {
  otherReaders = f;
}

const DEFAULT_MAX_FRAMES = 12;
const DEFAULT_LEAVE_AFTER = 5;

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

export class FrameReader {
  private readonly format?: Format;
  private readonly gs1: Gs1Mode;
  private readonly speed: Speed;
  private readonly maxFrames: number;
  private readonly leaveAfter: number;
  private readonly optionError: string | null;
  private addon: Addon | null = null;
  private fusion: NativeFrameFusion | null = null;
  /** Pushes run one after the other (the fusion's state is one sequence). */
  private queue: Promise<unknown> = Promise.resolve();
  private frame = 0;
  /** Symbols in view: key (format + payload bytes) -> the last frame that saw it. */
  private readonly inView = new Map<string, number>();
  private closed = false;
  /** The last push's timing (null when DotCode was not read with fusion). */
  lastFrameStats: FrameStats | null = null;

  constructor(options: FrameReaderOptions = {}) {
    this.format = options.format;
    this.gs1 = options.gs1 ?? 'auto';
    this.speed = options.speed ?? DEFAULT_SPEED;
    const maxFrames = options.maxFrames ?? DEFAULT_MAX_FRAMES;
    const leaveAfter = options.leaveAfter ?? DEFAULT_LEAVE_AFTER;
    this.maxFrames = Number.isInteger(maxFrames) && maxFrames >= 2 && maxFrames <= 120 ? maxFrames : DEFAULT_MAX_FRAMES;
    this.leaveAfter = Number.isInteger(leaveAfter) && leaveAfter >= 1 ? leaveAfter : DEFAULT_LEAVE_AFTER;
    this.optionError =
      this.format !== undefined && !(FORMATS as readonly string[]).includes(this.format) ? decodeError('unknown_format_option')
        : !(GS1_MODES as readonly string[]).includes(this.gs1) ? decodeError('unknown_gs1_option')
          : !isSpeed(this.speed) ? decodeError('unknown_speed_option')
            : null;
  }

  /** Whether DotCode is fused over frames here (false: the reader in use has no fusion, each frame is read alone). */
  get fuses(): boolean {
    const a = this.reader();
    return typeof a?.createFrameFusion === 'function';
  }

  /** Reads one frame (anything decode() accepts). Never rejects for bad input. */
  push(frame: ImageInput): Promise<FrameResult> {
    const run = this.queue.then(() => this.read(frame));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Forgets every symbol and track (a new scene). */
  reset(): void {
    this.frame = 0;
    this.inView.clear();
    if (this.fusion && this.addon?.resetFrameFusion) this.addon.resetFrameFusion(this.fusion);
  }

  /** Drops the native state (the garbage collector would too). Later pushes answer an error. */
  close(): void {
    this.closed = true;
    this.fusion = null;
    this.inView.clear();
  }

  private reader(): Addon | null {
    if (!this.addon) {
      try {
        this.addon = loadAddon();
      } catch {
        return null;
      }
    }
    return this.addon;
  }

  private async read(input: ImageInput): Promise<FrameResult> {
    const t0 = performance.now();
    const fail = (error: string): FrameResult => ({
      ok: false, text: null, format: null, via: 'none', elapsed_ms: round(performance.now() - t0), error, gs1: null, frames_used: 0, new: false,
    });
    if (this.closed) return fail(decodeError('internal', 'this FrameReader is closed'));
    if (this.optionError) return fail(this.optionError);
    const p = prepare(input);
    if ('error' in p) return fail(p.error);
    let grey: GreyImage;
    try {
      grey = await loadGrey(p.wire);
    } catch (e) {
      return fail(loadError(e));
    }
    const frame = ++this.frame;
    const seen: string[] = [];
    let answer: { symbol: SymbolAnswer; framesUsed: number } | null = null;
    let error: string | null = null;
    this.lastFrameStats = null;

    if (!this.format || this.format === 'DotCode') {
      try {
        const push = await this.readDotCode(grey);
        for (const b of push.seen) seen.push(keyOf('DotCode', b));
        for (const r of push.reads) {
          const s = fromDotCode(toSymbol(r), this.gs1);
          seen.push(keyOf('DotCode', r.bytes));
          answer ??= { symbol: s, framesUsed: r.framesUsed };
        }
      } catch (e) {
        if (this.format === 'DotCode') error = nativeError(e);
      }
    }
    if (!answer && !error && this.format !== 'DotCode' && otherReaders) {
      const z = await otherReaders(grey, this.format as ZXingFormat | undefined, this.gs1, this.speed);
      if (z.error) error = z.error;
      const s = z.symbols[0];
      if (s) {
        answer = { symbol: s, framesUsed: 1 };
        seen.push(keyOf(s.format ?? '', s.bytes as Uint8Array));
      }
    }

    // `new`: not seen within the last leaveAfter frames.
    let isNew = false;
    if (answer) {
      const key = keyOf(answer.symbol.format ?? '', answer.symbol.bytes as Uint8Array);
      const last = this.inView.get(key);
      isNew = last === undefined || frame - last > this.leaveAfter;
    }
    for (const k of seen) this.inView.set(k, frame);
    for (const [k, last] of this.inView) if (frame - last > this.leaveAfter) this.inView.delete(k);

    const elapsed = round(performance.now() - t0);
    if (!answer) {
      return { ok: false, text: null, format: null, via: 'none', elapsed_ms: elapsed, error: error ?? 'no_dotcode_found', gs1: null, frames_used: 0, new: false };
    }
    const s = answer.symbol;
    return {
      ok: true, text: s.text, format: s.format as Format, via: s.via, elapsed_ms: elapsed, error: null, gs1: s.gs1,
      frames_used: answer.framesUsed, new: isNew,
    };
  }

  /** The frame through the native fusion, or, on a reader without it, read alone. */
  private async readDotCode(grey: GreyImage): Promise<NativeFramePush> {
    const addon = this.reader();
    if (!addon) throw new Error('the DotCode reader could not be loaded');
    const options = { ...dotcodeOptions(this.speed, true), maxSymbols: 1 };
    if (!addon.createFrameFusion || !addon.pushFrame) {
      const reads = await addon.readImage(grey.data, grey.width, grey.height, options);
      return { reads: reads.map((r) => ({ ...r, framesUsed: 1, track: -1 })), seen: [], detectMs: 0, fuseMs: 0 };
    }
    this.fusion ??= addon.createFrameFusion(this.maxFrames);
    const push = await addon.pushFrame(this.fusion, grey.data, grey.width, grey.height, options);
    this.lastFrameStats = { detectMs: push.detectMs, fuseMs: push.fuseMs };
    return push;
  }
}

function keyOf(format: string, bytes: Uint8Array): string {
  return `${format}\u0000${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')}`;
}
