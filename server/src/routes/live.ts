// wss /v1/live (SPEC 4.4): a camera stream over a web-socket, metered like /v1/decode.
//
// Each binary message is one image (JPEG; PNG also accepted) and gets exactly one JSON answer,
// in the order the frames came; frames wait and are dropped ({ok:false, error:"frame_dropped"},
// never decoded or charged) by the one rule of server/src/frames.ts, with `liveMaxQueued` waiting.
// Each socket reads its frames through one FrameReader (docs/engine.md, "Video: FrameReader"):
// DotCode is tracked and fused over the frames, and each answer also carries `frames_used` and
// `new`. Each decoded frame costs one scan (server/src/metering.ts). When the quota is spent
// the answer says so and the socket closes with 4402; a missing or wrong key closes with 4401.
import type { IncomingMessage } from 'node:http';
import { WebSocketServer, type WebSocket, type RawData } from 'ws';
import { ApiError, errorBody } from '../errors';
import type { AppDeps, ServerModule } from '../app';
import { authenticate, rateLimit } from './auth';
import { checkImage, parseDecodeQuery, reserveAndDecode, type DecodeParams } from '../metering';
import { FrameQueue, type FrameAnswer } from '../frames';
import type { FrameSession } from '../engine';
import type { Customer } from '../store/types';
import { StoreUnavailableError } from '../store/types';

export const CLOSE_BAD_KEY = 4401;
export const CLOSE_QUOTA = 4402;
export const CLOSE_BAD_REQUEST = 4400;
/** opening sockets faster than the key's burst limit, or more at once than liveMaxSocketsPerKey */
export const CLOSE_RATE_LIMITED = 4429;
/** RFC 6455 "try again later": the store is down at connect time */
export const CLOSE_TRY_LATER = 1013;

/** One /v1/live socket of one customer: frames through the shared frame queue into metered decoding. */
class LiveSession {
  private readonly frames: FrameQueue<Buffer>;
  private readonly reader: FrameSession;

  constructor(ws: WebSocket, private deps: AppDeps, private customer: Customer, private params: DecodeParams) {
    this.reader = deps.engine.frames({ format: params.format, gs1: params.gs1, speed: params.speed });
    this.frames = new FrameQueue<Buffer>({
      maxWaiting: deps.config.liveMaxQueued,
      decode: (bytes) => this.decodeOne(bytes),
      dropped: () => ({ body: errorBody('frame_dropped', 'Frames arrive faster than they can be decoded; this one was skipped (not charged).') }),
      onDrop: () => deps.metrics.liveFrames.inc({ outcome: 'dropped' }),
      send: (body) => ws.send(JSON.stringify(body)),
      close: (code, reason) => ws.close(code, reason),
    });
    ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    // frames still waiting when the client goes are never decoded, so never charged
    ws.on('close', () => {
      this.frames.stop();
      this.reader.close();
    });
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    if (!isBinary) {
      this.frames.answer({ body: errorBody('binary_frames_only', 'Send each image as one binary message.') });
      return;
    }
    this.frames.push(Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer));
  }

  private async decodeOne(bytes: Buffer): Promise<FrameAnswer> {
    try {
      checkImage(this.deps, bytes);
      const { result } = await reserveAndDecode(this.deps, this.customer, bytes, this.params, 'live', undefined, this.reader);
      this.deps.metrics.liveFrames.inc({ outcome: 'decoded' });
      return { body: { ...result } };
    } catch (err) {
      if (err instanceof ApiError) {
        this.deps.metrics.liveFrames.inc({ outcome: err.code });
        const body = errorBody(err.code, err.message, err.extra);
        return err.status === 402 ? { body, close: { code: CLOSE_QUOTA, reason: 'quota exhausted' } } : { body };
      }
      if (err instanceof StoreUnavailableError) {
        this.deps.metrics.liveFrames.inc({ outcome: 'store_unavailable' });
        return { body: errorBody('store_unavailable', 'The usage ledger is unreachable; this frame was not decoded or charged.') };
      }
      this.deps.logger.error({ err: (err as Error).stack }, 'live frame failed');
      return { body: errorBody('internal_error', 'The service failed on this frame.') };
    }
  }
}

function closeWith(ws: WebSocket, code: number, error: string, message: string): void {
  // the reason also goes as a last JSON message: browsers show close reasons poorly
  ws.send(JSON.stringify(errorBody(error, message)), () => ws.close(code, error));
}

/** The key of a socket URL: only `?api_key=` (a browser cannot set headers on a web-socket). */
function socketKey(url: URL): string | undefined {
  const all = url.searchParams.getAll('api_key');
  if (all.length > 1) throw new ApiError(400, 'invalid_parameter', 'Query parameter "api_key" is given more than once; give it once.');
  if (!all[0]) {
    throw new ApiError(401, 'missing_api_key', 'Put your API key in the query string: /v1/live?api_key=KEY (a web-socket cannot carry the X-API-Key header).');
  }
  return all[0];
}

/** Open sockets per customer in this process (issue 16: 120 sockets of one key held 450 MB). */
const openPerCustomer = new Map<string, number>();

async function open(ws: WebSocket, req: IncomingMessage, deps: AppDeps): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://live');
  const q: Record<string, unknown> = {};
  for (const k of ['format', 'speed']) { const all = url.searchParams.getAll(k); if (all.length) q[k] = all.length > 1 ? all : all[0]; }
  let customer: Customer;
  let params: DecodeParams;
  try {
    params = parseDecodeQuery(q);
    customer = await authenticate(deps, socketKey(url));
    // opening a socket counts as one request of the key's burst window (frames do not: they
    // are paced by decoding and the drop rule)
    await rateLimit(deps, customer.id);
    const max = deps.config.liveMaxSocketsPerKey;
    if ((openPerCustomer.get(customer.id) ?? 0) >= max) {
      throw new ApiError(429, 'too_many_sockets', `This key already has ${max} live sockets open; close one first.`);
    }
  } catch (err) {
    if (err instanceof ApiError) {
      const code = err.status === 401 ? CLOSE_BAD_KEY : err.status === 429 ? CLOSE_RATE_LIMITED : CLOSE_BAD_REQUEST;
      closeWith(ws, code, err.code, err.message);
    } else if (err instanceof StoreUnavailableError) {
      closeWith(ws, CLOSE_TRY_LATER, 'store_unavailable', 'The usage ledger is unreachable; reconnect in a second.');
    } else {
      deps.logger.error({ err: (err as Error).stack }, 'live open failed');
      ws.close(1011, 'internal_error');
    }
    return;
  }
  if (ws.readyState !== ws.OPEN) return; // gone while its key was checked: nothing to count
  const id = customer.id;
  openPerCustomer.set(id, (openPerCustomer.get(id) ?? 0) + 1);
  ws.once('close', () => {
    const n = (openPerCustomer.get(id) ?? 1) - 1;
    if (n > 0) openPerCustomer.set(id, n); else openPerCustomer.delete(id);
  });
  new LiveSession(ws, deps, customer, params);
}

export const liveModule: ServerModule = {
  name: 'live',
  register({ deps, addUpgrade, onClose }) {
    const wss = new WebSocketServer({ noServer: true, maxPayload: deps.config.maxBodyBytes });
    addUpgrade('/v1/live', (req, socket, head) => {
      wss.handleUpgrade(req, socket, head, (ws) => {
        // ws emits frames as soon as they arrive; those sent right after the handshake would be
        // lost while the key is being checked, so hold them and replay them to the session.
        const early: [RawData, boolean][] = [];
        const hold = (d: RawData, b: boolean) => early.push([d, b]);
        ws.on('message', hold);
        ws.on('error', () => ws.terminate());
        void open(ws, req, deps).then(() => {
          ws.off('message', hold);
          for (const [d, b] of early) ws.emit('message', d, b);
        });
      });
    });
    onClose(() => {
      for (const c of wss.clients) c.terminate();
      wss.close();
    });
  },
};
