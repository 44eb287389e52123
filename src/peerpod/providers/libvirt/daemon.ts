// For tests and dev machines without systemd: make libvirt usable, starting only what is missing
// and remembering what it started (by PID) so the caller can stop exactly that.
//
// Facts from the machine notes: libvirt re-probes QEMU on every call (44 s per define) unless
// /dev/kvm is group `kvm` and mode 660; `virsh start` needs virtlogd; the first libvirtd start
// takes ~8 s.
import { execFile, spawn } from 'node:child_process';
import { chmod, chown, readFile, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { findPidsByComm, isZombie, processComm } from '../procfs.ts';
import { waitFor } from '../wait.ts';

const run = promisify(execFile);

export interface LibvirtdHandle {
  /** PIDs this call started (empty when everything was already running). */
  readonly startedPids: number[];
  /** Stops what this call started, newest first; leaves daemons it found running alone. */
  stop(): Promise<void>;
}

export interface EnsureLibvirtdOptions {
  uri?: string;
  /** Bound on waiting for libvirtd to answer (default 60 s). */
  timeoutMs?: number;
}

async function kvmGroupId(): Promise<number | undefined> {
  const groups = await readFile('/etc/group', 'utf8').catch(() => '');
  for (const line of groups.split('\n')) {
    const [name, , gid] = line.split(':');
    if (name === 'kvm') return Number(gid);
  }
  return undefined;
}

/** Group `kvm`, mode 660 on /dev/kvm; no-op when already so, when not root, or without /dev/kvm. */
export async function fixDevKvm(): Promise<void> {
  if (process.getuid?.() !== 0) return;
  const st = await stat('/dev/kvm').catch(() => undefined);
  if (!st) return;
  let gid = await kvmGroupId();
  if (gid === undefined) {
    await run('groupadd', ['-r', 'kvm']);
    gid = await kvmGroupId();
    if (gid === undefined) throw new Error('groupadd -r kvm did not create group kvm');
  }
  if (st.gid !== gid) await chown('/dev/kvm', st.uid, gid);
  if ((st.mode & 0o777) !== 0o660) await chmod('/dev/kvm', 0o660);
}

async function virshAnswers(uri: string): Promise<boolean> {
  try {
    await run('virsh', ['-c', uri, 'version'], { timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

function startDaemon(binary: string): Promise<number> {
  // Foreground mode (no -d) so the PID we get is the daemon itself, not a parent that forks away.
  const child = spawn(binary, [], { detached: true, stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('spawn', () => {
      child.unref();
      if (child.pid === undefined) reject(new Error(`${binary} started without a PID`));
      else resolve(child.pid);
    });
  });
}

async function stopPid(pid: number, comm: string): Promise<void> {
  const isIt = async (): Promise<boolean> => (await processComm(pid)) === comm && !(await isZombie(pid));
  const gone = async (): Promise<true | undefined> => ((await isIt()) ? undefined : true);
  if (!(await isIt())) return;
  process.kill(pid, 'SIGTERM');
  try {
    await waitFor(`${comm} (${pid}) to exit`, gone, { timeoutMs: 10_000, intervalMs: 50 });
  } catch {
    if (await isIt()) process.kill(pid, 'SIGKILL');
    await waitFor(`${comm} (${pid}) to exit after SIGKILL`, gone, { timeoutMs: 5_000, intervalMs: 50 });
  }
}

/** Idempotent: applies the /dev/kvm fix, then starts virtlogd and libvirtd if they are not running. */
export async function ensureLibvirtd(opts: EnsureLibvirtdOptions = {}): Promise<LibvirtdHandle> {
  const uri = opts.uri ?? process.env.LIBVIRT_URI ?? 'qemu:///system';
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const started: Array<{ pid: number; comm: string }> = [];
  const virtlogdBefore = new Set(await findPidsByComm('virtlogd'));
  const handle: LibvirtdHandle = {
    get startedPids() {
      return started.map((s) => s.pid);
    },
    async stop() {
      const ourLibvirtd = started.some((s) => s.comm === 'libvirtd');
      for (const s of [...started].reverse()) await stopPid(s.pid, s.comm);
      started.length = 0;
      // Our libvirtd may have spawned a virtlogd of its own (it does when it finds none): that one is ours too.
      if (ourLibvirtd) {
        for (const pid of await findPidsByComm('virtlogd'))
          if (!virtlogdBefore.has(pid)) await stopPid(pid, 'virtlogd');
      }
    },
  };
  try {
    await fixDevKvm();
    if ((await findPidsByComm('virtlogd')).length === 0) {
      started.push({ pid: await startDaemon('virtlogd'), comm: 'virtlogd' });
      await waitFor(
        'virtlogd socket',
        () =>
          stat('/run/libvirt/virtlogd-sock').then(
            () => true,
            () => undefined,
          ),
        {
          timeoutMs: 10_000,
          intervalMs: 50,
        },
      );
    }
    if ((await findPidsByComm('libvirtd')).length === 0) {
      started.push({ pid: await startDaemon('libvirtd'), comm: 'libvirtd' });
    }
    await waitFor(`libvirtd at ${uri}`, async () => ((await virshAnswers(uri)) ? true : undefined), {
      timeoutMs,
      intervalMs: 200,
    });
  } catch (err) {
    await handle.stop();
    throw err;
  }
  return handle;
}
