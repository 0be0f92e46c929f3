// Logging (pino). Secrets never reach a log line: we never log request headers, every URL is
// logged with the values of key-carrying query parameters replaced, and pino's redaction
// covers the header paths anyway in case some code logs a raw request.
import pino from 'pino';

export type Logger = pino.Logger;

const SECRET_PARAMS = new Set(['key', 'api_key', 'apikey', 'license_key', 'licence_key', 'token']);

/** The URL with the values of secret query parameters replaced by "[redacted]". */
export function safeUrl(url: string | undefined): string {
  if (!url) return '';
  const q = url.indexOf('?');
  if (q < 0) return url;
  const parts = url.slice(q + 1).split('&').map((kv) => {
    const eq = kv.indexOf('=');
    const raw = eq < 0 ? kv : kv.slice(0, eq);
    let name: string;
    try {
      name = decodeURIComponent(raw.replace(/\+/g, ' ')).toLowerCase();
    } catch {
      // Malformed %-encoding ("%zz"): this runs in the request log's `finally`, so a throw here
      // would turn an answered (and charged) request into a bare 500. Fail closed: redact it.
      return `${raw}=[redacted]`;
    }
    return SECRET_PARAMS.has(name) ? `${raw}=[redacted]` : kv;
  });
  return `${url.slice(0, q)}?${parts.join('&')}`;
}

export interface LoggerOptions {
  level?: string;
  /** a file to append to (tests read it); default stdout */
  file?: string;
}

export function createLogger(o: LoggerOptions = {}): Logger {
  const dest = o.file ? pino.destination({ dest: o.file, sync: true, mkdir: true }) : pino.destination(1);
  return pino({
    level: o.level ?? process.env.DOTCODE_LOG_LEVEL ?? 'info',
    base: { svc: 'dotcode-api' },
    redact: {
      paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'headers["x-api-key"]', 'headers.authorization',
        'apiKey', 'api_key', 'licenseKey', 'license_key', 'key'],
      censor: '[redacted]',
    },
  }, dest);
}
