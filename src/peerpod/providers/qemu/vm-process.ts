// Starting and stopping one QEMU process per VM. The process is detached (own session, no pipes to
// us, unref'd) so it outlives the operator that started it, as a cloud VM outlives its API client.
import { spawn } from 'node:child_process';
import { open, readFile } from 'node:fs/promises';
import { cmdlineArgs } from '../procfs.ts';
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
  ];
}

export async function spawnVm(spec: VmSpec): Promise<number> {
  const log = await open(spec.logFile, 'a', 0o600);
  try {
    const child = spawn(spec.binary, qemuArgs(spec), { detached: true, stdio: ['ignore', log.fd, log.fd] });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    child.unref();
    if (child.pid === undefined) throw new Error(`${spec.binary} started without a PID`);
    return child.pid;
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

export async function logTail(file: string, bytes = 2000): Promise<string> {
  try {
    const text = await readFile(file, 'utf8');
    return text.slice(-bytes).trim();
  } catch {
    return '';
  }
}

/** Resolves once QMP answers query-status; fails at once if the process dies first. */
export async function waitQmpReady(pid: number, vm: VmRecord, timeoutMs: number): Promise<QmpStatus> {
  return waitFor(
    `QMP of ${vm.name}`,
    async () => {
      if (!(await isVmProcess(pid, vm))) {
        const tail = await logTail(vm.logFile);
        throw new Error(`qemu exited during start${tail ? `: ${tail}` : ''}`);
      }
      let client: QmpClient;
      try {
        client = await QmpClient.connect(vm.qmpSocket, 1000);
      } catch {
        return undefined; // socket not there yet
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
 * away — only after re-checking that the PID still is this VM.
 */
export async function stopVm(
  pid: number,
  vm: Pick<VmRecord, 'uuid' | 'qmpSocket'>,
  { quitTimeoutMs, killTimeoutMs }: { quitTimeoutMs: number; killTimeoutMs: number },
): Promise<'quit' | 'killed' | 'gone'> {
  const gone = async (): Promise<true | undefined> => ((await isVmProcess(pid, vm)) ? undefined : true);
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
  if (await isVmProcess(pid, vm)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  }
  await waitFor(`exit of QEMU ${pid} after SIGKILL`, gone, { timeoutMs: killTimeoutMs, intervalMs: 10 });
  return 'killed';
}
