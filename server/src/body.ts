// Request bodies, read with a cap: the uploaded image of a decode request (a multipart form with
// the image in field `file`, or the raw bytes as the body, SPEC 4.1: both treated identically),
// and the small JSON bodies of the SDK background calls and the portal (readJsonBody).
//
// The 8 MB cap is enforced while streaming: a declared Content-Length over the cap is refused
// before reading a byte, and a body that grows past the cap is cut off at the cap, so no request
// ever holds more than the cap in memory.
import Busboy from 'busboy';
import type { IncomingMessage } from 'node:http';
import { ApiError } from './errors';

/** multipart framing (boundaries, part headers) on top of the file itself */
const MULTIPART_SLACK = 64 * 1024;

function tooLarge(max: number): ApiError {
  return new ApiError(413, 'payload_too_large', `The image is over the ${Math.round(max / 1024 / 1024)} MB limit; resize or recompress it.`);
}

/** After refusing an upload mid-stream: drain and drop what the client still sends (never kept),
 *  then close the connection so a client that keeps sending cannot hold it. */
function discardRest(req: IncomingMessage): void {
  req.resume();
  const t = setTimeout(() => req.socket.destroy(), 5000);
  t.unref();
  req.once('end', () => clearTimeout(t));
}

export async function readImageBody(req: IncomingMessage, max: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  const type = String(req.headers['content-type'] ?? '').toLowerCase();
  const multipart = type.startsWith('multipart/form-data');
  if (Number.isFinite(declared) && declared > max + (multipart ? MULTIPART_SLACK : 0)) {
    discardRest(req);
    throw tooLarge(max);
  }
  return multipart ? readMultipart(req, max) : readRaw(req, max);
}

function readRaw(req: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > max) {
        done = true;
        req.off('data', onData);
        chunks.length = 0;
        discardRest(req);
        reject(tooLarge(max));
        return;
      }
      chunks.push(c);
    };
    req.on('data', onData);
    req.on('end', () => {
      if (done) return;
      done = true;
      if (size === 0) reject(new ApiError(400, 'empty_body', 'The request body is empty: send the image bytes, or a multipart form with the image in field "file".'));
      else resolve(Buffer.concat(chunks, size));
    });
    // a client that goes away mid-body ('aborted' error, or a close before the end): settle now,
    // or the request would wait forever; it is the client's failure, not a 500 of ours
    const cut = () => {
      if (done || req.complete) return;
      done = true;
      reject(new ApiError(400, 'incomplete_body', 'The upload was cut off before the body ended.'));
    };
    req.on('error', cut);
    req.on('close', cut);
  });
}

function badForm(e: Error): ApiError {
  return new ApiError(400, 'bad_multipart', `The multipart form cannot be read: ${e.message}`);
}

function readMultipart(req: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let bb: Busboy.Busboy;
    try {
      bb = Busboy({ headers: req.headers, limits: { fileSize: max, files: 5, fields: 20, fieldSize: 4096, parts: 30 } });
    } catch (e) {
      req.resume();
      reject(new ApiError(400, 'bad_multipart', `The multipart form cannot be read: ${(e as Error).message}`));
      return;
    }
    let file: Buffer | null = null;
    let settled = false;
    const fail = (err: ApiError) => {
      if (settled) return;
      settled = true;
      req.unpipe(bb);
      discardRest(req);
      reject(err);
    };
    bb.on('file', (name, stream) => {
      // A part cut off before its closing boundary ("Unexpected end of form") errors the part
      // stream as well as busboy itself; an 'error' with no listener ends the whole process.
      // Every part gets the listener, the ignored ones too.
      stream.on('error', (e: Error) => fail(badForm(e)));
      // other file parts are drained, never kept (each is capped too)
      if (name !== 'file' || file !== null) { stream.resume(); return; }
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (c: Buffer) => { size += c.length; chunks.push(c); });
      stream.on('limit', () => { chunks.length = 0; fail(tooLarge(max)); });
      stream.on('end', () => { if (!settled) file = Buffer.concat(chunks, size); });
    });
    bb.on('error', (e: Error) => fail(badForm(e)));
    // a client that goes away mid-upload: settle now, or the request would wait forever
    req.on('error', () => fail(new ApiError(400, 'bad_multipart', 'The upload was cut off before the form ended.')));
    req.on('close', () => { if (!req.complete) fail(new ApiError(400, 'bad_multipart', 'The upload was cut off before the form ended.')); });
    bb.on('close', () => {
      if (settled) return;
      settled = true;
      if (file === null) reject(new ApiError(400, 'missing_file', 'The multipart form has no field "file": put the image in a field named "file".'));
      else if (file.length === 0) reject(new ApiError(400, 'empty_file', 'The "file" field is empty.'));
      else resolve(file);
    });
    req.pipe(bb);
  });
}

/** How one route names the failures of a JSON body (its documented codes, server/src/openapi.ts). */
export interface JsonBodyErrors {
  /** 413 code when the body is over the cap */
  tooLarge: string;
  /** 400 code for a body that is not a JSON object, or was cut off */
  invalid: string;
  /** the 400 message for a body that is not a JSON object */
  invalidMessage: string;
}

/**
 * Reads a small JSON object body (SDK background calls, portal sign-in): at most `max` bytes,
 * refused at the cap while streaming; a body that is not one JSON object is a 400.
 */
export async function readJsonBody(req: IncomingMessage, max: number, errors: JsonBodyErrors): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const c of req as AsyncIterable<Buffer>) {
      size += c.length;
      if (size > max) throw new ApiError(413, errors.tooLarge, `The JSON body is over ${Math.round(max / 1024)} KB.`);
      chunks.push(c);
    }
  } catch (e) {
    if (e instanceof ApiError) throw e;
    // the client went away mid-body: its request, not the service, failed (not a 500)
    throw new ApiError(400, errors.invalid, 'The request body was cut off before it ended.');
  }
  try {
    const v = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch { /* answered below */ }
  throw new ApiError(400, errors.invalid, errors.invalidMessage);
}
