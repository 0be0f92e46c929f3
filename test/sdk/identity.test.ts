import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { machineIdentity, osMachineId, stateDir, withFileLock } from '../../lib/telemetry';
import { sleep, tmpDir } from './helpers';

describe('machine identity and the state folder lock', () => {
  let dir: string;
  beforeEach(() => { dir = tmpDir('dc-ident-'); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('derives one id per (OS machine id, licence), stable when the state folder is wiped', async () => {
    const idFile = path.join(dir, 'machine-id');
    fs.writeFileSync(idFile, '3d1219c7c4c5404aaa1f6d2a48adfda4\n');
    const a = await machineIdentity('lic_a', { dir: path.join(dir, 's'), machineIdFiles: [idFile] });
    const a2 = await machineIdentity('lic_a', { dir: path.join(dir, 's'), machineIdFiles: [idFile] });
    const b = await machineIdentity('lic_b', { dir: path.join(dir, 's'), machineIdFiles: [idFile] });
    assert.equal(a.source, 'os');
    assert.match(a.machineId, /^[0-9a-f]{32}$/);
    assert.equal(a.machineId, a2.machineId);
    assert.notEqual(a.machineId, b.machineId, 'another licence, another id');
    assert.ok(!a.machineId.includes('3d1219c7'), 'the raw OS id is never sent');
    fs.rmSync(path.join(dir, 's'), { recursive: true });
    assert.equal((await machineIdentity('lic_a', { dir: path.join(dir, 's'), machineIdFiles: [idFile] })).machineId, a.machineId);
    // A read-only / impossible state folder does not matter when the OS id exists.
    // A folder under a plain file is never creatable; /proc answers ENOENT under an existing
    // parent, where Node's own recursive mkdir would loop forever.
    assert.equal((await machineIdentity('lic_a', { dir: '/proc/dotcode-cannot-exist/s', machineIdFiles: [idFile] })).machineId, a.machineId);
    const ro = await machineIdentity('lic_a', { dir: path.join(idFile, 'state'), machineIdFiles: [idFile] });
    assert.equal(ro.machineId, a.machineId);
  });

  it('without an OS id, a random host id is kept in the state folder', async () => {
    assert.equal(osMachineId([path.join(dir, 'none')]), null);
    const a = await machineIdentity('lic_a', { dir, machineIdFiles: [] });
    const b = await machineIdentity('lic_a', { dir, machineIdFiles: [] });
    assert.equal(a.source, 'state');
    assert.equal(a.machineId, b.machineId);
    fs.rmSync(path.join(dir, 'machine.json'));
    assert.notEqual((await machineIdentity('lic_a', { dir, machineIdFiles: [] })).machineId, a.machineId);
    fs.writeFileSync(path.join(dir, 'plain-file'), '');
    await assert.rejects(() => machineIdentity('lic_a', { dir: path.join(dir, 'plain-file', 'state'), machineIdFiles: [] }));
  });

  it('the lock excludes concurrent holders and breaks a lock left by a dead process', async () => {
    const lock = path.join(dir, 'x.lock');
    let inside = 0;
    let maxInside = 0;
    await Promise.all(Array.from({ length: 8 }, () => withFileLock(lock, async () => {
      inside += 1;
      maxInside = Math.max(maxInside, inside);
      await sleep(5);
      inside -= 1;
    })));
    assert.equal(maxInside, 1);
    assert.equal(fs.existsSync(lock), false);
    fs.writeFileSync(lock, '999999999'); // no such pid
    const t = Date.now();
    assert.equal(await withFileLock(lock, () => 'got it'), 'got it');
    assert.ok(Date.now() - t < 1000);
    fs.writeFileSync(lock, String(process.pid)); // held by a live process: wait, then give up
    await assert.rejects(() => withFileLock(lock, () => 1, { waitMs: 200 }), /held by another process/);
  });

  it('the state folder comes from DOTCODE_STATE_DIR, else XDG_STATE_HOME, else ~/.local/state', () => {
    assert.equal(stateDir({ DOTCODE_STATE_DIR: '/srv/dc' }), '/srv/dc');
    assert.equal(stateDir({ XDG_STATE_HOME: '/x/state' }), '/x/state/dotcode-sdk');
    assert.match(stateDir({}), /\.local\/state\/dotcode-sdk$/);
  });
});
