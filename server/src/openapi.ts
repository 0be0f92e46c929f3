// The OpenAPI 3.1 description of every HTTP route, error body and header of the Cloud API,
// served at /openapi.json. test/server/openapi.test.ts checks it against the running server:
// every route the router knows is described, every described route exists, and the statuses
// and bodies the tests provoke are the documented ones.
import { GS1_JSON_SCHEMA, version } from 'dotcode-sdk';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const hdr = (name: string) => ({ $ref: `#/components/headers/${name}` });

function error(description: string, codes: string[], headers: string[] = []): Record<string, unknown> {
  return {
    description: `${description} Error codes: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
    headers: Object.fromEntries(headers.map((h) => [h, hdr(h)])),
    content: { 'application/json': { schema: { allOf: [ref('Error'), { properties: { error: { enum: codes } } }] } } },
  };
}

const rateHeaders = ['RateLimit-Policy', 'RateLimit'];

const decodeResponses = (v2: boolean) => ({
  200: {
    description: 'Decode result (SPEC 2.1). An image without a readable code is still 200, with ok=false and error set; it costs one scan.',
    headers: Object.fromEntries([...rateHeaders, 'Idempotent-Replayed'].map((h) => [h, hdr(h)])),
    content: { 'application/json': { schema: v2 ? ref('DecodeResultV2') : ref('DecodeResult') } },
  },
  400: error('Not a readable image (empty body, no `file` field, not PNG/JPEG by content, corrupt image) or a bad query parameter. Costs nothing.',
    ['empty_body', 'incomplete_body', 'missing_file', 'empty_file', 'bad_multipart', 'unsupported_image', 'unreadable_image', 'invalid_format', 'invalid_gs1', 'invalid_parameter', 'invalid_idempotency_key'], rateHeaders),
  401: error('Missing or wrong API key (a stray space or newline makes it wrong). Costs nothing.', ['missing_api_key', 'invalid_api_key']),
  402: {
    ...error('The quota of the period is spent: hard stop, no overage. The body also carries `quota`, `used`, `remaining` and `resets_on`.', ['quota_exhausted'], rateHeaders),
  },
  409: error('Idempotency-Key reused with a different request, or the first request with it is still running.', ['idempotency_key_reused', 'idempotency_in_progress'], ['Retry-After']),
  413: error('Body over 8 MB (refused while streaming), or an image over about 40 megapixels (refused before decoding). Costs nothing.', ['payload_too_large', 'image_too_large']),
  429: error('Burst limit of this key. Costs nothing.', ['rate_limited'], ['Retry-After', ...rateHeaders]),
  500: error('Service failure; the scan is given back.', ['internal_error', 'engine_error'], ['Retry-After']),
  503: error('The usage store is unreachable: nothing is decoded and nothing is charged.', ['store_unavailable'], ['Retry-After']),
});

const decodeOp = (v2: boolean) => ({
  summary: v2 ? 'Decode an image; the answer includes the remaining quota' : 'Decode an image',
  operationId: v2 ? 'decodeV2' : 'decodeV1',
  security: [{ apiKey: [] }],
  parameters: [
    { name: 'format', in: 'query', required: false, schema: ref('Format'), description: 'Restrict to one symbology; without it all are tried, DotCode first.' },
    { name: 'gs1', in: 'query', required: false, schema: { type: 'string', enum: ['auto', 'always', 'off'], default: 'auto' } },
    {
      name: 'speed', in: 'query', required: false, schema: { type: 'string', enum: ['video', 'balanced', 'thorough'], default: 'balanced' },
      description: 'Our extension (not in the SPEC). `balanced`: a cheap pass first, the thorough passes only when it finds nothing (the read counts of every earlier version). ' +
        '`video`: one cheap pass per reader, for live camera frames where the next frame is another chance. `thorough`: more passes (denoising, another binarizer) when the usual ones find nothing. ' +
        'Another value: 400 `invalid_parameter`.',
    },
    { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 },
      description: 'Retrying with the same key and the same body answers the stored first result without a second scan (kept 24 h); the same key with another body is 409.' },
  ],
  requestBody: {
    required: true,
    description: 'The image (PNG or JPEG, at most 8 MB): raw bytes as the body, or a multipart form with the image in field `file`. Both are treated identically.',
    content: {
      'image/png': { schema: { type: 'string', format: 'binary' } },
      'image/jpeg': { schema: { type: 'string', format: 'binary' } },
      'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
      'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } } },
    },
  },
  responses: decodeResponses(v2),
});

const licenseErrors = {
  401: error('The licence key is missing, altered, truncated or from another supplier.', ['invalid_license']),
  403: error('The licence is revoked, expired (term and 14-day grace over), or lacks the SDK feature.', ['license_revoked', 'license_expired', 'feature_not_licensed']),
  503: error('This server has no supplier key yet, or its store is unreachable.', ['supplier_not_initialised', 'store_unavailable'], ['Retry-After']),
};

export function openapiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'DotCode Cloud API',
      version,
      description: 'Reads DotCode (and QR Code, Data Matrix, PDF417, Aztec, MaxiCode) from images, metered per scan against a monthly quota. ' +
        'Every error answer is JSON {ok:false, error, message}. Web-socket: `wss://<host>/v1/live?api_key=<key>&format=<format>` (optional `speed` as on /v1/decode; not expressible in OpenAPI): ' +
        'one binary JPEG frame per message, one JSON decode result per frame in order, plus `frames_used` (DotCode read from that many frames fused; 1: the frame alone) and `new` (first report since the symbol came into view); `frame_dropped` answers cost nothing; close 4402 after the quota runs out, 4401 on a bad key, 4400 on a bad format or speed, 4429 when sockets are opened faster than the burst limit (each opening counts as one request) or the key already has its maximum of open sockets (`too_many_sockets`, 8 per key per server process), 1013 while the store is unreachable. A text message is answered `binary_frames_only`.',
    },
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        license: { type: 'http', scheme: 'License', description: '`Authorization: License <licence key>`' },
      },
      headers: {
        'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
        'RateLimit-Policy': { description: 'IETF draft-ietf-httpapi-ratelimit-headers-10, e.g. `"burst";q=50;w=1`.', schema: { type: 'string' } },
        'RateLimit': { description: 'IETF draft-ietf-httpapi-ratelimit-headers-10, e.g. `"burst";r=49;t=1`.', schema: { type: 'string' } },
        'Idempotent-Replayed': { description: '`true` when the answer is the stored result of an earlier request with the same Idempotency-Key.', schema: { type: 'string', enum: ['true'] } },
        'Content-Disposition': { description: '`attachment; filename="dotcode-sdk-<version>.tgz"`', schema: { type: 'string' } },
      },
      schemas: {
        Format: { type: 'string', enum: ['DotCode', 'QRCode', 'DataMatrix', 'PDF417', 'Aztec', 'MaxiCode'] },
        Error: {
          type: 'object', required: ['ok', 'error', 'message'],
          properties: { ok: { const: false }, error: { type: 'string' }, message: { type: 'string' } },
        },
        // The gs1 object's schema lives with the GS1 module, so the document cannot drift from it.
        Gs1: GS1_JSON_SCHEMA,
        DecodeResult: {
          type: 'object', required: ['ok', 'text', 'format', 'via', 'elapsed_ms', 'error', 'gs1'],
          properties: {
            ok: { type: 'boolean' },
            text: { type: ['string', 'null'] },
            format: { oneOf: [ref('Format'), { type: 'null' }] },
            via: { type: 'string', description: 'Decoding pass, e.g. dotcode:fast, dotcode:adaptive, dotcode:inverted, zxing; none when nothing was read.' },
            elapsed_ms: { type: 'number' },
            error: { type: ['string', 'null'], description: 'no_dotcode_found when no symbol was read.' },
            gs1: { oneOf: [ref('Gs1'), { type: 'null' }] },
          },
        },
        Quota: {
          type: 'object', required: ['used', 'remaining', 'limit', 'resets_on'],
          properties: { used: { type: 'integer' }, remaining: { type: 'integer' }, limit: { type: 'integer' }, resets_on: { type: 'string', format: 'date' } },
        },
        DecodeResultV2: { allOf: [ref('DecodeResult'), { type: 'object', required: ['quota'], properties: { quota: ref('Quota') } }] },
        Usage: {
          type: 'object', required: ['plan', 'quota', 'used', 'remaining', 'resets_on'],
          properties: { plan: { type: 'string' }, quota: { type: 'integer' }, used: { type: 'integer' }, remaining: { type: 'integer' }, resets_on: { type: 'string', format: 'date' } },
        },
      },
    },
    paths: {
      '/v1/decode': { post: decodeOp(false) },
      '/v2/decode': { post: decodeOp(true) },
      '/v1/usage': {
        get: {
          summary: 'Usage of the current monthly period', operationId: 'usage', security: [{ apiKey: [] }],
          responses: {
            200: { description: 'Usage record (SPEC 2.3).', headers: { 'RateLimit-Policy': hdr('RateLimit-Policy'), RateLimit: hdr('RateLimit') }, content: { 'application/json': { schema: ref('Usage') } } },
            401: error('Missing or wrong API key.', ['missing_api_key', 'invalid_api_key']),
            429: error('Burst limit of this key.', ['rate_limited'], ['Retry-After', ...rateHeaders]),
            503: error('The usage store is unreachable.', ['store_unavailable'], ['Retry-After']),
          },
        },
      },
      '/v1/sdk/download': {
        get: {
          summary: 'Download the SDK package stamped for this supplier', operationId: 'sdkDownload',
          parameters: [{ name: 'key', in: 'query', required: true, schema: { type: 'string' }, description: 'Licence key with the `sdk` feature.' }],
          responses: {
            200: { description: 'The npm tarball dotcode-sdk-<version>.tgz, stamped with the URL fixed at start (--public-url), never the request\'s Host.', headers: { 'Content-Disposition': hdr('Content-Disposition') }, content: { 'application/gzip': { schema: { type: 'string', format: 'binary' } } } },
            400: error('The `key` parameter is given more than once.', ['invalid_parameter']),
            ...licenseErrors,
            429: error('Download budget of this licence spent (DOTCODE_DOWNLOAD_LIMIT, default 20 per hour).', ['rate_limited'], ['Retry-After']),
          },
        },
      },
      '/v1/sdk/register': {
        post: {
          summary: 'SDK background registration of a machine (takes or renews a seat)', operationId: 'sdkRegister', security: [{ license: [] }],
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['machine_id'], properties: {
            machine_id: { type: 'string' }, hostname: { type: 'string' }, platform: { type: 'string' }, sdk_version: { type: 'string' } } } } } },
          responses: {
            200: { description: 'Registered.', content: { 'application/json': { schema: { type: 'object', required: ['ok', 'machine_id', 'seats', 'seats_used'], properties: {
              ok: { const: true }, machine_id: { type: 'string' }, seats: { type: 'integer' }, seats_used: { type: 'integer' } } } } } },
            400: error('Bad JSON body.', ['invalid_json', 'invalid_parameter']),
            409: error('Every seat of the licence is held by another machine; the SDK keeps scanning.', ['seat_limit_reached']),
            ...licenseErrors,
          },
        },
      },
      '/v1/sdk/usage': {
        post: {
          summary: 'SDK usage report and heartbeat; a retried report_id counts once', operationId: 'sdkUsage', security: [{ license: [] }],
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['machine_id', 'scans', 'report_id'], properties: {
            machine_id: { type: 'string' }, scans: { type: 'integer', minimum: 0 }, report_id: { type: 'string' } } } } } },
          responses: {
            200: { description: 'Recorded (or already recorded); the machine\'s seat lease is renewed, or taken if one is free.', content: { 'application/json': { schema: { type: 'object', properties: { ok: { const: true } } } } } },
            400: error('Bad JSON body.', ['invalid_json', 'invalid_parameter']),
            409: error('The machine holds no seat and none is free; its scans are still recorded. The SDK registers again later.', ['seat_limit_reached']),
            ...licenseErrors,
          },
        },
      },
      '/scanner': { get: { summary: 'The Live Scanner page (SPEC 4.6); its socket is /v1/scanner/live (licence key in the first message)', operationId: 'scannerPage',
        responses: { 200: { description: 'HTML page.', content: { 'text/html': { schema: { type: 'string' } } } } } } },
      '/scanner/wasm/dotcode_reader.wasm': { get: { summary: 'A WebAssembly module of the Live Scanner page (on-device decoding): our DotCode reader', operationId: 'scannerDotcodeWasm',
        responses: { 200: { description: 'The module.', content: { 'application/wasm': { schema: { type: 'string', format: 'binary' } } } }, 404: { description: 'Not available on this server (the page then sends frames over the socket).' } } } },
      '/scanner/wasm/zxing_reader.wasm': { get: { summary: 'A WebAssembly module of the Live Scanner page (on-device decoding): the zxing-wasm reader (QR Code, Data Matrix, PDF417, Aztec, MaxiCode)', operationId: 'scannerZxingWasm',
        responses: { 200: { description: 'The module.', content: { 'application/wasm': { schema: { type: 'string', format: 'binary' } } } }, 404: { description: 'Not available on this server (the page then sends frames over the socket).' } } } },
      '/portal': { get: { summary: 'The customer portal page (sign in with an API key or a licence key)', operationId: 'portalPage',
        responses: { 200: { description: 'HTML page.', content: { 'text/html': { schema: { type: 'string' } } } } } } },
      '/v1/portal/session': {
        post: {
          summary: 'Portal data for a key: usage and daily scans (API key) or licence, machines and seats (licence key)', operationId: 'portalSession',
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['key'], properties: { key: { type: 'string' } } } } } },
          responses: {
            200: { description: 'The portal view of the key.', content: { 'application/json': { schema: { type: 'object' } } } },
            400: error('Not a JSON body {key}.', ['bad_request']),
            401: error('The key is not recognised.', ['invalid_key']),
            413: error('Body over 16 KB.', ['body_too_large']),
            429: error('Too many sign-in attempts from this address.', ['rate_limited'], ['Retry-After']),
            503: error('The store is unreachable.', ['store_unavailable'], ['Retry-After']),
          },
        },
      },
      '/healthz': {
        get: {
          summary: 'Liveness and store reachability', operationId: 'health',
          responses: {
            200: { description: 'Healthy.', content: { 'application/json': { schema: { type: 'object', properties: { ok: { const: true }, store: { type: 'string' }, version: { type: 'string' } } } } } },
            503: error('The store does not answer.', ['store_unavailable'], ['Retry-After']),
          },
        },
      },
      '/metrics': { get: { summary: 'Prometheus metrics', operationId: 'metrics', responses: { 200: { description: 'Prometheus text format.', content: { 'text/plain': { schema: { type: 'string' } } } } } } },
      '/openapi.json': { get: { summary: 'This document', operationId: 'openapi', responses: { 200: { description: 'OpenAPI 3.1 document.', content: { 'application/json': { schema: { type: 'object' } } } } } } },
    },
  };
}
