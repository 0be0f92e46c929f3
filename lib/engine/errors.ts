// The engine's failure codes: the `<code>` of `decode_error:<code>[:<detail>]` in a result's
// `error` (docs/engine.md). One typed list, so callers test a code instead of matching prefixes.

export const DECODE_ERROR_CODES = [
  'empty_input', 'unsupported_format', 'image_too_large', 'unreadable_image', 'invalid_frame',
  'file_not_found', 'not_a_file', 'permission_denied', 'file_unreadable',
  'unsupported_input', 'invalid_input', 'unknown_format_option', 'unknown_gs1_option', 'unknown_speed_option',
  /** the addon refused the image (its own message follows) */
  'native',
  /** the engine itself failed (a worker died, a timeout): not the input's fault */
  'internal',
] as const;

export type DecodeErrorCode = (typeof DECODE_ERROR_CODES)[number];

export const DECODE_ERROR_PREFIX = 'decode_error:';

/** A failure with its code; the engine turns it into `decode_error:<code>`. */
export class EngineError extends Error {
  constructor(readonly detail: DecodeErrorCode, message?: string) {
    super(message ?? detail);
  }
}

/** `decode_error:<code>[:<detail>]` for a code, with an optional detail after it. */
export function decodeError(code: DecodeErrorCode, detail?: string): string {
  return detail === undefined ? `${DECODE_ERROR_PREFIX}${code}` : `${DECODE_ERROR_PREFIX}${code}:${detail}`;
}

/** The code of a result's `error` when it says the input was not decoded at all; else null. */
export function decodeErrorCode(error: string | null | undefined): DecodeErrorCode | null {
  if (!error || !error.startsWith(DECODE_ERROR_PREFIX)) return null;
  const code = error.slice(DECODE_ERROR_PREFIX.length).split(':', 1)[0];
  return (DECODE_ERROR_CODES as readonly string[]).includes(code) ? code as DecodeErrorCode : null;
}

/** True when the engine failed (not the input): the server answers 5xx and charges nothing. */
export function isInternalError(error: string | null | undefined): boolean {
  return decodeErrorCode(error) === 'internal';
}

/** The error of a failed addon call; the addon's messages already start with decode_error:native: (native/addon). */
export function nativeError(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.startsWith(DECODE_ERROR_PREFIX) ? msg : decodeError('native', msg);
}

/** The error of a failed image load: the EngineError's code, anything else an unreadable image. */
export function loadError(e: unknown): string {
  return decodeError(e instanceof EngineError ? e.detail : 'unreadable_image');
}
