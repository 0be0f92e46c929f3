// The SDK's background calls against the real Cloud API (server/src), with its SQLite store:
// three processes count as one machine, scans are reported, the seat limit is logged.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Scanner } from '../../lib';
import { packageRoot } from '../../lib/license';
import { initSupplier, loadSupplier, removeStampKey, signLicense, writeStamp } from '../../server/src/signing';
import { startServer, RunningServer } from '../../server/src/server';
import { createLogger } from '../../server/src/logger';
import { collector, DAY, now, qrPng, tmpDir, waitFor } from './helpers';

const ROOT = path.resolve(__dirname, '../../..');

describe('SDK background calls against the real Cloud API', function () {
  this.timeout(60000);
  let data: string;
  let srv: RunningServer;
  let png: Buffer;
  let sign: (seats: number) => { key: string; lid: string };
  let kid = '';

  before(async () => {
    data = tmpDir('dc-realsrv-');
    initSupplier(data);
    const sup = loadSupplier(data);
    kid = sup.kid;
    writeStamp(packageRoot(), sup.publicKeyPem, ''); // merges with the other test suppliers
    srv = await startServer({ port: 0, host: '127.0.0.1', dataDir: data, logger: createLogger({ file: path.join(data, 'api.log') }) });
    let n = 0;
    sign = (seats) => {
      const lid = `lic_real_${process.pid}_${n++}`;
      const t = now();
      return { lid, key: signLicense({ lid, org: 'Real Co', plan: 'sdk', seats, features: ['sdk'], iat: t - DAY, exp: t + 300 * DAY, url: srv.url }, sup.signingKey) };
    };
    png = await qrPng('real server');
  });
  after(async () => {
    await srv?.close();
    removeStampKey(packageRoot(), kid);
    fs.rmSync(data, { recursive: true, force: true });
  });

  it('three processes register one machine and their scans are all reported', async () => {
    const { key, lid } = sign(1);
    const state = path.join(data, 'state');
    fs.writeFileSync(path.join(data, 'real.png'), png);
    const child = `
      const { Scanner } = require(${JSON.stringify(path.join(ROOT, 'dist/lib/index.js'))});
      (async () => {
        const s = new Scanner(process.env.KEY, { logger: { warn: (m) => console.error(m) } });
        for (let i = 0; i < 4; i++) await s.decode(${JSON.stringify(path.join(data, 'real.png'))});
        const end = Date.now() + 4000;
        while (!s.cloudOk && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
        await s.close();
        console.log(JSON.stringify({ ok: s.cloudOk, error: s.cloudError }));
      })();`;
    const run = (): Promise<{ ok: boolean; error: string | null }> => new Promise((resolve, reject) => {
      const p = spawn(process.execPath, ['-e', child], { env: { ...process.env, KEY: key, DOTCODE_STATE_DIR: state } });
      let out = '';
      p.stdout.on('data', (c) => { out += c; });
      p.stderr.on('data', (c) => { out += c; });
      p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(out))));
    });
    const outs = await Promise.all([run(), run(), run()]);
    assert.deepEqual(outs, [{ ok: true, error: null }, { ok: true, error: null }, { ok: true, error: null }]);
    const machines = (await srv.deps.store.listMachines(lid)).filter((m) => m.kind === 'sdk');
    assert.equal(machines.length, 1, 'one machine for three processes, on a 1-seat licence');
    assert.equal(machines[0].scans, 12, 'close() flushed every process\'s scans');
  });

  it('beyond the seat count: "seat limit reached" is logged and scanning goes on', async () => {
    const { key } = sign(1);
    // Another machine takes the only seat first.
    const r = await fetch(`${srv.url}/v1/sdk/register`, {
      method: 'POST', headers: { authorization: `License ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ machine_id: 'another-machine-0000', hostname: 'other', platform: 'linux-x64', sdk_version: '0.0.0' }),
    });
    assert.equal(r.status, 200);
    const log = collector();
    const s = new Scanner(key, { logger: log, cloud: { stateDir: path.join(data, 'state2') } });
    assert.ok(await waitFor(() => s.cloudError !== null, 3000));
    assert.match(s.cloudError!, /^seat_limit_reached/);
    assert.equal(s.cloudOk, false);
    assert.equal((await s.decode(png)).text, 'real server');
    assert.equal(log.messages.length, 1);
    assert.match(log.messages[0], /^seat limit reached/);
    await s.close();
  });

  it('a revoked or unknown-to-the-server licence is reported as the cloud error, decoding unaffected', async () => {
    const { key, lid } = sign(2);
    await srv.deps.store.revokeLicense(lid, Date.now());
    const log = collector();
    const s = new Scanner(key, { logger: log, cloud: { stateDir: path.join(data, 'state3') } });
    assert.ok(await waitFor(() => s.cloudError !== null, 3000));
    assert.match(s.cloudError!, /403 license_revoked/);
    assert.equal((await s.decode(png)).text, 'real server');
    assert.equal(log.messages.length, 1);
    await s.close();
  });
});
