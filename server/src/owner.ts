// Who holds an idempotency record (issue 16, item 2). A record in progress names its owner: this
// server process, as host/pid/boot. A boot id is random per process start, so a restarted server
// never mistakes a record of its previous life (even under the same pid, as in a container) for
// its own.
//
// A retry that finds a record in progress asks ownerGone(): on the same host we can tell for
// sure (the pid is gone, or it is ours under another boot id); for an owner on another host we
// cannot, and the record's lease (renewed by a live owner while it works) decides instead.
import { randomBytes } from 'node:crypto';
import * as os from 'node:os';

const HOST = os.hostname().replace(/\//g, '_');

export const processOwner = `${HOST}/${process.pid}/${randomBytes(6).toString('hex')}`;

export function ownerGone(owner: string): boolean {
  const [host, pidText, boot] = owner.split('/');
  if (host !== HOST || !boot) return false;
  const pid = Number(pidText);
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return owner !== processOwner;
  try {
    process.kill(pid, 0);
    return false; // a process with that pid runs (maybe another server: wait for its lease)
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
