/**
 * Machine identity and the state folder shared by every SDK process of a machine.
 *
 * One machine must count as one seat however many processes use the SDK (SPEC 2.5 rule 2).
 * The identity is derived from the OS machine id (`/etc/machine-id`) and the licence id, so two
 * licences on one host do not share an id and the raw OS id never leaves the machine. Hosts
 * without a machine id (many containers) get a random host id created once, under a file lock,
 * in the state folder; every process then reads the same one.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';

const MACHINE_ID_FILES = ['/etc/machine-id', '/var/lib/dbus/machine-id'];

/**
 * The state folder: `DOTCODE_STATE_DIR`, else `$XDG_STATE_HOME/dotcode-sdk`, else
 * `~/.local/state/dotcode-sdk`. Created on first use.
 */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.DOTCODE_STATE_DIR) return path.resolve(env.DOTCODE_STATE_DIR);
  const base = env.XDG_STATE_HOME || path.join(os.homedir(), '.local', 'state');
  return path.join(base, 'dotcode-sdk');
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs `fn` while holding an exclusive lock file (`O_CREAT|O_EXCL`, holder's pid inside).
 * A lock left by a dead process, or older than `staleMs`, is broken, so a crash never wedges
 * the folder. Gives up after `waitMs` with an error (the caller treats that as a cloud error,
 * never as a scan failure).
 */
export async function withFileLock<T>(lockPath: string, fn: () => Promise<T> | T, opts: { waitMs?: number; staleMs?: number } = {}): Promise<T> {
  const waitMs = opts.waitMs ?? 3000;
  const staleMs = opts.staleMs ?? 10_000;
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const fd = fs.openSync(lockPath, 'wx', 0o644);
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      try {
        const st = fs.statSync(lockPath);
        const holder = Number(fs.readFileSync(lockPath, 'utf8'));
        // An empty file is a holder between open and write: only break it once it is old.
        const dead = Number.isInteger(holder) && holder > 0 && !pidAlive(holder);
        if (dead || Date.now() - st.mtimeMs > staleMs) fs.rmSync(lockPath, { force: true });
      } catch { /* the holder just released it: retry at once */ }
      if (Date.now() > deadline) throw new Error(`state folder lock ${lockPath} is held by another process`);
      await sleep(10 + Math.random() * 20);
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lockPath, { force: true });
  }
}

/** Reads the OS machine id, or null when the host has none. */
export function osMachineId(files: readonly string[] = MACHINE_ID_FILES): string | null {
  for (const f of files) {
    try {
      const id = fs.readFileSync(f, 'utf8').trim();
      if (/^[0-9a-fA-F]{16,}$/.test(id)) return id.toLowerCase();
    } catch { /* try the next one */ }
  }
  return null;
}

export interface MachineIdentity {
  /** The id sent to the service: 32 hex digits, stable per (machine, licence). */
  machineId: string;
  /** Where the host id came from. */
  source: 'os' | 'state';
  stateDir: string;
}

/**
 * The machine identity for a licence. Reads or creates `<state>/machine.json` under the lock:
 * `{ host_id, source, created }`. When the OS id is present it is used (and recorded) so
 * deleting the state folder never changes the identity; otherwise the stored random id is.
 */
export async function machineIdentity(licenseId: string, opts: { dir?: string; machineIdFiles?: readonly string[] } = {}): Promise<MachineIdentity> {
  const osId = osMachineId(opts.machineIdFiles);
  let dir = opts.dir ?? stateDir();
  try {
    ensureDir(dir, 0o755);
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (e) {
    // A read-only home (common in containers) must not cost the machine its registration: with
    // an OS id nothing needs storing; without one, fall back to a per-user folder in the temp dir.
    if (osId) return { machineId: deriveId(osId, licenseId), source: 'os', stateDir: dir };
    if (opts.dir) throw e;
    dir = path.join(os.tmpdir(), `dotcode-sdk-${typeof process.getuid === 'function' ? process.getuid() : 'user'}`);
    ensureDir(dir, 0o700);
  }
  const file = path.join(dir, 'machine.json');
  const { hostId, source } = await withFileLock(path.join(dir, 'machine.lock'), () => {
    let stored: { host_id?: string; source?: string } | null = null;
    try {
      stored = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch { /* missing or damaged: write a fresh one */ }
    if (osId) {
      if (stored?.host_id !== osId) writeAtomic(file, { host_id: osId, source: 'os', created: new Date().toISOString() });
      return { hostId: osId, source: 'os' as const };
    }
    if (stored?.host_id && /^[0-9a-f]{32}$/.test(stored.host_id)) return { hostId: stored.host_id, source: 'state' as const };
    const fresh = randomBytes(16).toString('hex');
    writeAtomic(file, { host_id: fresh, source: 'state', created: new Date().toISOString() });
    return { hostId: fresh, source: 'state' as const };
  });
  return { machineId: deriveId(hostId, licenseId), source, stateDir: dir };
}

/** One id per (host, licence); the raw host id never leaves the machine. */
function deriveId(hostId: string, licenseId: string): string {
  return createHash('sha256').update(`dotcode-machine\0${hostId}\0${licenseId}`).digest('hex').slice(0, 32);
}

/**
 * mkdir -p with a bounded number of steps. Node's own recursive mkdir can loop forever where a
 * file system answers ENOENT under an existing parent (/proc, some FUSE mounts), and this runs
 * on the caller's event loop: a hang here would stall decodes.
 */
function ensureDir(dir: string, mode: number): void {
  const parts: string[] = [];
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    parts.unshift(d);
    if (path.dirname(d) === d) break;
  }
  for (const d of parts) {
    try {
      fs.mkdirSync(d, { mode });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  if (!fs.statSync(dir).isDirectory()) throw new Error(`${dir} is not a folder`);
}

function writeAtomic(file: string, value: unknown): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(value) + '\n');
  fs.renameSync(tmp, file);
}
