// Error answers of the Cloud API: always JSON {ok:false, error, message} (DESIGN.md 5), with the
// status of SPEC 7.1. Handlers throw ApiError; the app's error middleware writes it.
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** extra members of the body (e.g. resets_on on 402) */
    readonly extra: Record<string, unknown> = {},
    /** extra headers (e.g. Retry-After) */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function errorBody(code: string, message: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ok: false, error: code, message, ...extra };
}

export const storeDown = (): ApiError => new ApiError(503, 'store_unavailable',
  'The usage ledger is unreachable, so no scan can be counted; nothing was decoded or charged. Retry in a second.',
  {}, { 'Retry-After': '1' });
