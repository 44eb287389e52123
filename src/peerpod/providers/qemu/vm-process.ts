// Starting and stopping one QEMU process per VM. The process is detached (own session, no pipes to
// us, unref'd) so it outlives the operator that started it, as a cloud VM outlives its API client.
import { spawn } from 'node:child_process';
import { open, readFile } from 'node:fs/promises';
import { cmdlineArgs, liveProcessStat } from '../procfs.ts';
import { waitFor } from '../wait.ts';
import { QmpClient, type QmpStatus } from './qmp.ts';
import type { VmRecord } from './state.ts';

export interface VmSpec {
  binary: string;
  name: string;
  uuid: string;
  vcpus: number;
  memoryMiB: number;
  qmpSocket: string;
  logFile: string;
  /** QEMU writes its PID here once it is up, whatever launched it. */
  pidFile: string;
}

export function qemuArgs(spec: VmSpec): string[] {
  // QEMU option values use "," as a separator; a literal comma is written twice.
  const sock = spec.qmpSocket.replaceAll(',', ',,');
  return [
    '-name',
    spec.name.replaceAll(',', ',,'),
    '-uuid',
    spec.uuid,
    '-nodefaults',
    '-no-user-config',
    '-display',
    'none',
    // KVM when /dev/kvm is usable, otherwise QEMU falls through to TCG by itself.
    '-accel',
    'kvm',
    '-accel',
    'tcg',
    '-m',
    String(spec.memoryMiB),
    '-smp',
    String(spec.vcpus),
    '-qmp',
    `unix:${sock},server=on,wait=off`,
    '-pidfile',
    spec.pidFile,
  ];
}

/** The process launched for a VM: its PID and, once read, its start time (which survives its execs). */
export interface Launched {
  pid: number | null;
  startTime?: string;
}

export async function spawnVm(spec: VmSpec): Promise<Launched> {
  const log = await open(spec.logFile, 'a', 0o600);
  try {
    const child = spawn(spec.binary, qemuArgs(spec), { detached: true, stdio: ['ignore', log.fd, log.fd] });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    child.unref();
    if (child.pid === undefined) throw new Error(`${spec.binary} started without a PID`);
    // Read right away, long before its PID could be reused; no stat means it has already exited.
    return { pid: child.pid, startTime: (await liveProcessStat(child.pid))?.startTime };
  } finally {
    await log.close();
  }
}

/**
 * The VM's identity check: the PID's command line must carry both the VM's UUID and its QMP socket
 * path. The UUID alone could match a libvirt-managed QEMU (they pass `-uuid` too); the socket ties
 * the process to this provider's state directory. Zombies have no command line and do not match.
 */
export async function isVmProcess(pid: number | null, vm: Pick<VmRecord, 'uuid' | 'qmpSocket'>): Promise<boolean> {
  if (pid === null || !Number.isInteger(pid) || pid <= 0) return false;
  const args = await cmdlineArgs(pid);
  if (!args?.includes(vm.uuid)) return false;
  const sock = vm.qmpSocket.replaceAll(',', ',,');
  return args.some((a) => a.startsWith(`unix:${sock},`));
}

/**
 * What the launched process is to the VM: `vm` once its command line is the VM's; `starting` while
 * it is still the process launched (same start time) but shows another command line — empty for a
 * moment while it execs, or a wrapper's that execs QEMU later; `gone` once it has exited. A record
 * without a start time (written by an older version) is judged by the command line alone.
 */
export async function vmProcessState(
  launched: Launched,
  vm: Pick<VmRecord, 'uuid' | 'qmpSocket'>,
): Promise<'vm' | 'starting' | 'gone'> {
  const { pid, startTime } = launched;
  if (pid === null || !Number.isInteger(pid) || pid <= 0) return 'gone';
  const stat = await liveProcessStat(pid);
  if (!stat || (startTime !== undefined && stat.startTime !== startTime)) return 'gone';
  if (await isVmProcess(pid, vm)) return 'vm';
  return startTime !== undefined ? 'starting' : 'gone';
}

/**
 * The PID QEMU wrote to its pidfile, if that process still is the VM's (a pidfile outlives a
 * SIGKILLed QEMU, and its PID may be reused): undefined when there is no such file or process.
 */
export async function pidFromFile(file: string, vm: Pick<VmRecord, 'uuid' | 'qmpSocket'>): Promise<number | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  if (!/^\d+\s*$/.test(text)) return undefined;
  const pid = Number.parseInt(text, 10);
  return (await isVmProcess(pid, vm)) ? pid : undefined;
}

export async function logTail(file: string, bytes = 2000): Promise<string> {
  try {
    const text = await readFile(file, 'utf8');
    return text.slice(-bytes).trim();
  } catch {
    return '';
  }
}

/**
 * Resolves once QMP answers query-status; fails as soon as `alive` says no process of the VM is
 * left. The socket is tried first: QMP answering proves the VM is up whatever /proc shows.
 */
export async function waitQmpReady(vm: VmRecord, alive: () => Promise<boolean>, timeoutMs: number): Promise<QmpStatus> {
  return waitFor(
    `QMP of ${vm.name}`,
    async () => {
      let client: QmpClient;
      try {
        client = await QmpClient.connect(vm.qmpSocket, 1000);
      } catch {
        if (await alive()) return undefined; // socket not there yet
        const tail = await logTail(vm.logFile);
        throw new Error(`qemu exited during start${tail ? `: ${tail}` : ''}`);
      }
      try {
        return await client.queryStatus(1000);
      } finally {
        client.close();
      }
    },
    { timeoutMs, intervalMs: 15 },
  );
}

/**
 * QMP `quit` first (a clean exit), then SIGKILL by PID when QEMU does not answer or does not go
 * away — only after re-checking that the PID still is this VM's process (or the one launched for
 * it, still starting).
 */
export async function stopVm(
  target: Launched & { pid: number },
  vm: Pick<VmRecord, 'uuid' | 'qmpSocket'>,
  { quitTimeoutMs, killTimeoutMs }: { quitTimeoutMs: number; killTimeoutMs: number },
): Promise<'quit' | 'killed' | 'gone'> {
  const { pid } = target;
  const gone = async (): Promise<true | undefined> =>
    (await vmProcessState(target, vm)) === 'gone' ? true : undefined;
  if (await gone()) return 'gone';
  try {
    const client = await QmpClient.connect(vm.qmpSocket, Math.min(1000, quitTimeoutMs));
    try {
      await client.quit(quitTimeoutMs);
    } finally {
      client.close();
    }
    await waitFor(`exit of QEMU ${pid}`, gone, { timeoutMs: quitTimeoutMs, intervalMs: 10 });
    return 'quit';
  } catch {
    // No QMP or no exit in time: fall through to the kill.
  }
  if (!(await gone())) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  }
  await waitFor(`exit of QEMU ${pid} after SIGKILL`, gone, { timeoutMs: killTimeoutMs, intervalMs: 10 });
  return 'killed';
}
