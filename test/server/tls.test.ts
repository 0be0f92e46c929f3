// dotcode serve --tls-cert/--tls-key: HTTPS for the API and WSS for the live socket.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as path from 'node:path';
import WebSocket from 'ws';
import { customer, DOTCODE_PNG, tempDir, testServer } from './helpers';
import { SqliteStore } from '../../server/src/store/sqlite';

describe('TLS: HTTPS and WSS', function () {
  const dir = tempDir('tls');
  const cert = path.join(dir, 'cert.pem'), key = path.join(dir, 'key.pem');
  before(function () {
    const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
      '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', key, '-out', cert]);
    if (r.status !== 0) {
      console.log('    NOTICE: openssl could not make a test certificate; skipping the TLS test');
      this.skip();
    }
  });

  it('serves the API over HTTPS (HSTS on) and the live socket over WSS, trusted through the CA file', async () => {
    const store = new SqliteStore(':memory:');
    const srv = await testServer({ store, tlsCert: cert, tlsKey: key });
    try {
      assert.match(srv.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const ca = fs.readFileSync(cert);
      const c = await customer(store, 10);
      const body = await new Promise<{ status: number; hsts?: string; json: any }>((resolve, reject) => {
        const req = https.request(`${srv.url}/v1/decode`, { method: 'POST', ca, headers: { 'X-API-Key': c.key, 'Content-Length': DOTCODE_PNG.length } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (d) => chunks.push(d));
          res.on('end', () => resolve({ status: res.statusCode!, hsts: res.headers['strict-transport-security'], json: JSON.parse(Buffer.concat(chunks).toString()) }));
        });
        req.on('error', reject);
        req.end(DOTCODE_PNG);
      });
      assert.equal(body.status, 200);
      assert.equal(body.json.text, 'Hello from DotCode Reader');
      assert.ok(body.hsts);
      const answer = await new Promise<any>((resolve, reject) => {
        const ws = new WebSocket(`${srv.url.replace('https', 'wss')}/v1/live?api_key=${c.key}`, { ca });
        ws.on('open', () => ws.send(DOTCODE_PNG));
        ws.on('message', (d) => { resolve(JSON.parse(d.toString())); ws.close(); });
        ws.on('error', reject);
      });
      assert.equal(answer.text, 'Hello from DotCode Reader');
    } finally {
      await srv.close();
      await store.close();
    }
  });
});
