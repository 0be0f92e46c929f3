// Whatever a caller hands the engine (a path, encoded bytes, a raw frame, an OpenCV Mat) ->
// something that can cross to a worker thread, cheaply and on the caller's side (no pixel work).
// Shared by decode/decodeAll/decodeSync/inspect (index.ts) and the FrameReader (frame-reader.ts).
import { decodeError } from './errors';
import type { WireInput } from './image';
import type { ImageInput } from './types';

function isMatLike(x: unknown): x is { rows: number; cols: number; channels: number | (() => number); getData(): Uint8Array } {
  const o = x as Record<string, unknown>;
  return typeof o.rows === 'number' && typeof o.cols === 'number' && typeof o.getData === 'function' &&
    (typeof o.channels === 'number' || typeof o.channels === 'function');
}

export type Prepared = { wire: WireInput } | { error: string };

/**
 * Turns whatever the caller handed over into something that can cross to a worker thread, on
 * the caller's side and cheaply (no pixel work here). Bad input gives an error code, never a throw.
 */
export function prepare(input: ImageInput): Prepared {
  try {
    if (typeof input === 'string') {
      if (input.length === 0) return { error: decodeError('empty_input') };
      return { wire: { kind: 'path', path: input } };
    }
    if (input instanceof Uint8Array) { // Buffer is a Uint8Array too
      if (input.byteLength === 0) return { error: decodeError('empty_input') };
      return { wire: { kind: 'bytes', bytes: input } };
    }
    if (input instanceof ArrayBuffer) {
      if (input.byteLength === 0) return { error: decodeError('empty_input') };
      return { wire: { kind: 'bytes', bytes: new Uint8Array(input) } };
    }
    if (input && typeof input === 'object') {
      if (isMatLike(input)) {
        const channels = typeof input.channels === 'function' ? input.channels() : input.channels;
        const data = input.getData();
        if (!(data instanceof Uint8Array)) return { error: decodeError('invalid_frame') };
        // OpenCV frames are BGR(A).
        return { wire: { kind: 'raw', data, width: input.cols, height: input.rows, channels, bgr: true } };
      }
      const f = input as unknown as Record<string, unknown>;
      if ('data' in f && 'width' in f && 'height' in f) {
        if (!(f.data instanceof Uint8Array || f.data instanceof Uint8ClampedArray)) return { error: decodeError('invalid_frame') };
        const d = f.data as Uint8Array;
        const channels = f.channels === undefined ? 1 : Number(f.channels);
        return {
          wire: {
            kind: 'raw', data: new Uint8Array(d.buffer, d.byteOffset, d.byteLength),
            width: Number(f.width), height: Number(f.height), channels, bgr: f.order === 'bgr',
          },
        };
      }
    }
    return { error: decodeError('unsupported_input') };
  } catch (e) {
    return { error: decodeError('invalid_input', (e as Error).message) };
  }
}
