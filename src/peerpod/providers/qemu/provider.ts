// The local default provider: each pod VM is a real `qemu-system-x86_64` process (disk-less,
// no guest network), controlled over QMP, remembered in a state directory.
//
// Config keys (ours; upstream has no such provider):
//   QEMU_STATE_DIR        records, logs, pidfiles, QMP sockets (default $PEERPODS_STATE_DIR/qemu, else .peerpods/qemu)
//   QEMU_BINARY           default qemu-system-x86_64
//   QEMU_DEFAULT_VCPUS    used when the request says 0 (default 1)
//   QEMU_DEFAULT_MEMORY   MiB, used when the request says 0 (default 128)
// Instance ID: the VM's UUID (`-uuid`). IPs: fake, see fake-ip.ts.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { access, constants } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { localHostCapacity, type CapacityRequest, type ProviderCapacity } from '../capacity.ts';
import { ConfigCheck, get, isNonNegativeInt, parseNonNegativeInt, type ProviderConfig } from '../config.ts';
import { InvalidInstanceIdError, ProviderError } from '../errors.ts';
import { KeyedLock } from '../keyed-lock.ts';
import { defaultLogger, type Logger } from '../log.ts';
import { generateInstanceName } from '../naming.ts';
import { findPidsWithArg, liveProcessStat } from '../procfs.ts';
import { matchesTags } from '../tags.ts';
import type { CloudProvider, CreateInstanceRequest, Instance } from '../types.ts';
import { fakeIp } from './fake-ip.ts';
import { StateStore, UUID_RE, type VmRecord } from './state.ts';
import { isVmProcess, pidFromFile, spawnVm, stopVm, vmProcessState, waitQmpReady } from './vm-process.ts';

/** A VM's process as found now: `starting` while the launched process does not show QEMU's command line yet. */
interface VmProcess {
  pid: number;
  state: 'vm' | 'starting';
}

const run = promisify(execFile);

export interface QemuProviderOptions {
  /** Overrides QEMU_STATE_DIR. */
  stateDir?: string;
  /** Time for a new VM to answer QMP (default 15 s). */
  startTimeoutMs?: number;
  /** Time for QEMU to exit after QMP quit before SIGKILL, and again after SIGKILL (default 3 s). */
  stopTimeoutMs?: number;
  logger?: Logger;
}

export function defaultQemuStateDir(config: ProviderConfig = {}, env: NodeJS.ProcessEnv = process.env): string {
  const explicit = get(config, 'QEMU_STATE_DIR');
  if (explicit) return path.resolve(explicit);
  const base = get(config, 'PEERPODS_STATE_DIR') || env.PEERPODS_STATE_DIR || '.peerpods';
  return path.resolve(base, 'qemu');
}

export class QemuProvider implements CloudProvider {
  readonly name = 'qemu';
  readonly stateDir: string;
  private readonly store: StateStore;
  private readonly binary: string;
  private readonly defaultVcpus: number;
  private readonly defaultMemoryMiB: number;
  private readonly startTimeoutMs: number;
  private readonly stopTimeoutMs: number;
  private readonly log: Logger;
  private readonly names = new KeyedLock();
  private readonly ids = new KeyedLock();

  constructor(
    private readonly config: ProviderConfig = {},
    opts: QemuProviderOptions = {},
  ) {
    this.stateDir = opts.stateDir ? path.resolve(opts.stateDir) : defaultQemuStateDir(config);
    this.store = new StateStore(this.stateDir);
    this.binary = get(config, 'QEMU_BINARY', 'qemu-system-x86_64');
    this.defaultVcpus = parseNonNegativeInt(get(config, 'QEMU_DEFAULT_VCPUS')) || 1;
    this.defaultMemoryMiB = parseNonNegativeInt(get(config, 'QEMU_DEFAULT_MEMORY')) || 128;
    this.startTimeoutMs = opts.startTimeoutMs ?? 15_000;
    this.stopTimeoutMs = opts.stopTimeoutMs ?? 3_000;
    this.log = (opts.logger ?? defaultLogger()).child({ provider: 'qemu' });
  }

  async createInstance(req: CreateInstanceRequest): Promise<Instance> {
    const name = generateInstanceName(req.podName, req.sandboxId);
    return this.names.run(name, async () => {
      await this.store.init();
      const existing = await this.findLiveByName(name);
      if (existing) {
        this.log.info({ name, id: existing.uuid }, 'adopting existing VM with the same name');
        return toInstance(existing);
      }
      const uuid = randomUUID();
      const rec: VmRecord = {
        version: 1,
        uuid,
        name,
        pid: null,
        tags: { ...req.tags },
        createdAt: new Date().toISOString(),
        qmpSocket: await this.store.socketPath(uuid),
        logFile: this.store.logPath(uuid),
        ip: fakeIp(uuid),
        vcpus: req.vcpus > 0 ? req.vcpus : this.defaultVcpus,
        memoryMiB: req.memoryMiB > 0 ? req.memoryMiB : this.defaultMemoryMiB,
        podName: req.podName,
        podNamespace: req.podNamespace,
        sandboxId: req.sandboxId,
      };
      // Recorded before the process exists, so a crash mid-create leaves a trace to clean up.
      await this.store.write(rec);
      const started = Date.now();
      try {
        const launched = await spawnVm({ binary: this.binary, ...rec, pidFile: this.store.pidFilePath(uuid) });
        rec.pid = launched.pid;
        rec.pidStartTime = launched.startTime;
        await this.store.write(rec);
        await waitQmpReady(rec, async () => (await this.processOf(rec)) !== undefined, this.startTimeoutMs);
        await this.recordQemuPid(rec);
      } catch (err) {
        await this.discard(rec);
        throw new ProviderError('qemu', `qemu: starting VM ${name}: ${(err as Error).message}`, {
          retryable: true,
          cause: err,
        });
      }
      this.log.info({ name, id: uuid, pid: rec.pid, ms: Date.now() - started }, 'VM started');
      return toInstance(rec);
    });
  }

  async deleteInstance(id: string): Promise<boolean> {
    if (!UUID_RE.test(id)) throw new InvalidInstanceIdError('qemu', id, 'a VM UUID');
    return this.ids.run(id, async () => {
      const rec = await this.store.read(id);
      const vm = rec ?? { uuid: id, qmpSocket: await this.store.socketPath(id), pid: null };
      const stopped = await this.stopProcesses(vm, this.stopTimeoutMs);
      await this.store.remove(rec ?? { uuid: id });
      return rec !== undefined || stopped > 0;
    });
  }

  async listInstances(tags: Record<string, string>): Promise<Instance[]> {
    const out: Instance[] = [];
    for (const rec of await this.store.list()) {
      const proc = await this.processOf(rec);
      if (proc === undefined) {
        if (rec.pid === null && Date.now() - Date.parse(rec.createdAt) < this.startTimeoutMs * 2) continue;
        await this.reapStale(rec);
        continue;
      }
      // A VM still starting is listed too: whoever sweeps must see it, or a launch that never
      // completes (its creator killed) would leave a VM no list shows.
      if (matchesTags(rec.tags, tags)) out.push(toInstance(rec, proc.state === 'vm' ? 'running' : 'starting'));
    }
    return out.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  /** Every VM runs on this host: its free memory and CPUs against the VM size. */
  capacity(req: CapacityRequest): Promise<ProviderCapacity> {
    const size = {
      vcpus: req.vcpus > 0 ? req.vcpus : this.defaultVcpus,
      memoryMiB: req.memoryMiB > 0 ? req.memoryMiB : this.defaultMemoryMiB,
    };
    return localHostCapacity(size, this.config);
  }

  async verifyConfig(): Promise<void> {
    const check = new ConfigCheck('qemu', this.config)
      .check('QEMU_DEFAULT_VCPUS', isNonNegativeInt, 'integer')
      .check('QEMU_DEFAULT_MEMORY', isNonNegativeInt, 'MiB');
    try {
      await run(this.binary, ['--version'], { timeout: 10_000 });
    } catch (err) {
      check.problem(`QEMU_BINARY (${this.binary} does not run: ${(err as Error).message.split('\n')[0]})`);
    }
    try {
      await this.store.init();
      await access(this.stateDir, constants.W_OK);
    } catch (err) {
      check.problem(`QEMU_STATE_DIR (${this.stateDir} is not writable: ${(err as Error).message})`);
    }
    check.throwIfAny();
  }

  /**
   * The record's process: the one launched for it (by PID and start time, even while it execs or
   * is a wrapper), else the one QEMU's pidfile names, else one re-found by command line (a VM
   * started before pidfiles, a pidfile removed).
   */
  private async processOf(rec: VmRecord): Promise<VmProcess | undefined> {
    const state = await vmProcessState({ pid: rec.pid, startTime: rec.pidStartTime }, rec);
    if (state !== 'gone' && rec.pid !== null) return { pid: rec.pid, state };
    const pid = (await pidFromFile(this.store.pidFilePath(rec.uuid), rec)) ?? (await this.findPids(rec))[0];
    return pid === undefined ? undefined : { pid, state: 'vm' };
  }

  private async findPids(vm: Pick<VmRecord, 'uuid' | 'qmpSocket'>): Promise<number[]> {
    const out: number[] = [];
    for (const pid of await findPidsWithArg(vm.uuid)) {
      if (await isVmProcess(pid, vm)) out.push(pid);
    }
    return out;
  }

  /**
   * Once QEMU is up, the VM's PID is the one QEMU wrote to its pidfile, whatever launched it: a
   * wrapper that forked QEMU (instead of exec'ing it) is not the VM. Without a pidfile, the
   * launched process if it became QEMU, else one found by command line.
   */
  private async recordQemuPid(rec: VmRecord): Promise<void> {
    let pid = await pidFromFile(this.store.pidFilePath(rec.uuid), rec);
    if (pid === undefined) {
      if ((await vmProcessState({ pid: rec.pid, startTime: rec.pidStartTime }, rec)) === 'vm') return;
      [pid] = await this.findPids(rec);
    }
    if (pid === undefined || pid === rec.pid) return;
    rec.pid = pid;
    rec.pidStartTime = (await liveProcessStat(pid))?.startTime;
    await this.store.write(rec);
  }

  /**
   * Stops the process launched for the VM (by PID and start time, so also mid-exec or while a
   * wrapper) and any other carrying its UUID and socket. Throws when one does not go away.
   */
  private async stopProcesses(
    vm: Pick<VmRecord, 'uuid' | 'qmpSocket' | 'pid' | 'pidStartTime'> & { name?: string },
    quitTimeoutMs: number,
  ): Promise<number> {
    const timeouts = { quitTimeoutMs, killTimeoutMs: this.stopTimeoutMs };
    const launched = { pid: vm.pid, startTime: vm.pidStartTime };
    const targets =
      (await vmProcessState(launched, vm)) !== 'gone' && vm.pid !== null ? [{ ...launched, pid: vm.pid }] : [];
    for (const pid of await this.findPids(vm)) if (pid !== vm.pid) targets.push({ pid, startTime: undefined });
    for (const target of targets) {
      const how = await stopVm(target, vm, timeouts);
      this.log.info({ id: vm.uuid, name: vm.name, pid: target.pid, how }, 'VM stopped');
    }
    return targets.length;
  }

  private async findLiveByName(name: string): Promise<VmRecord | undefined> {
    let found: VmRecord | undefined;
    for (const rec of await this.store.list()) {
      if (rec.name !== name) continue;
      const proc = await this.processOf(rec);
      if (proc === undefined) {
        await this.reapStale(rec);
      } else if (!found || rec.createdAt < found.createdAt) {
        found = { ...rec, pid: proc.pid };
      }
    }
    return found;
  }

  private async reapStale(rec: VmRecord): Promise<void> {
    this.log.warn(
      { id: rec.uuid, name: rec.name, pid: rec.pid },
      'VM process is gone (killed or host rebooted); removing its record',
    );
    await this.store.remove(rec);
  }

  /**
   * After a failed start: the record goes only once no process of the VM is left. One that may
   * still be alive keeps it, so list (and so the orphan sweep and the start-up reaper) still sees
   * the VM and delete can stop it.
   */
  private async discard(rec: VmRecord): Promise<void> {
    try {
      await this.stopProcesses(rec, 500);
    } catch (err) {
      this.log.error(
        { id: rec.uuid, name: rec.name, pid: rec.pid, err },
        'VM of a failed start did not stop; record kept',
      );
      return;
    }
    await this.store.remove(rec);
  }
}

function toInstance(rec: VmRecord, state: 'running' | 'starting' = 'running'): Instance {
  return {
    id: rec.uuid,
    name: rec.name,
    ips: [rec.ip],
    tags: { ...rec.tags },
    createdAt: new Date(rec.createdAt),
    state,
  };
}
