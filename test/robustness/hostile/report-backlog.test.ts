// Issue 16, item 5, the other side of bounded usage reports: the service refuses a report of more
// than MAX_REPORT_SCANS, so the SDK must never send one. A machine that comes back with a larger
// backlog (weeks offline) sends it over several reports, and every scan arrives exactly once.
import * as assert from 'node:assert/strict';
import { initKeys, issueLicense } from '../../../server/src/admin';
import { TelemetryClient } from '../../../lib/telemetry/client';
import { MAX_REPORT_SCANS } from '../../../lib/telemetry/limits';
import { tempDir } from '../../server/helpers';
import { dropPlace, openPlace, place, serve, until } from './serve';

describe('SDK usage backlog larger than one report [sqlite]', function () {
  it('goes out over several reports, each within the bound, and adds up exactly', async () => {
    const p = place('sqlite');
    initKeys(p.dataDir);
    const store = await openPlace(p);
    const s = await serve(p);
    try {
      const lic = await issueLicense(store, p.dataDir, { org: 'Offline Co', plan: 'edge', seats: 1, features: ['sdk'], url: s.url });
      const client = new TelemetryClient({
        url: s.url, licenseKey: lic.license_key, licenseId: lic.license_id, sdkVersion: '0.0.0-test', warn: () => undefined,
        heartbeatMs: 50, requestTimeoutMs: 5000, closeTimeoutMs: 5000, stateDir: tempDir('report-state'),
      });
      client.start();
      await until(() => client.cloudOk && client.machineId !== null);
      const backlog = 2 * MAX_REPORT_SCANS + 7;
      client.countScan(backlog);
      await until(() => client.pendingScans === 0);
      await client.close();
      const [m] = (await store.listMachines(lic.license_id)).filter((x) => x.kind === 'sdk');
      assert.equal(m.scans, backlog);
      assert.equal(client.cloudOk, true, String(client.cloudError));
    } finally {
      await s.stop();
      await dropPlace(p, store);
    }
  });
});
