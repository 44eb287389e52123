// The local default provider: each pod VM is a real `qemu-system-x86_64` process (disk-less,
// no guest network), controlled over QMP, remembered in a state directory.
//
// Config keys (ours; upstream has no such provider):
//   QEMU_STATE_DIR        records, logs, QMP sockets (default $PEERPODS_STATE_DIR/qemu, else .peerpods/qemu)
//   QEMU_BINARY           default qemu-system-x86_64
//   QEMU_DEFAULT_VCPUS    used when the request says 0 (default 1)
//   QEMU_DEFAULT_MEMORY   MiB, used when the request says 0 (default 128)
// Instance ID: the VM's UUID (`-uuid`). IPs: fake, see fake-ip.ts.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { access, constants } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { ConfigCheck, get, isNonNegativeInt, parseNonNegativeInt, type ProviderConfig } from '../config.ts';
import { InvalidInstanceIdError, ProviderError } from '../errors.ts';
import { KeyedLock } from '../keyed-lock.ts';
import { defaultLogger, type Logger } from '../log.ts';
import { generateInstanceName } from '../naming.ts';
import { findPidsWithArg } from '../procfs.ts';
import { matchesTags } from '../tags.ts';
import type { CloudProvider, CreateInstanceRequest, Instance } from '../types.ts';
import { fakeIp } from './fake-ip.ts';
import { StateStore, UUID_RE, type VmRecord } from './state.ts';
import { isVmProcess, spawnVm, stopVm, waitQmpReady } from './vm-process.ts';

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
        rec.pid = await spawnVm({ binary: this.binary, ...rec });
        await this.store.write(rec);
        await waitQmpReady(rec.pid, rec, this.startTimeoutMs);
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

  async deleteInstance(id: string): Promise<void> {
    if (!UUID_RE.test(id)) throw new InvalidInstanceIdError('qemu', id, 'a VM UUID');
    await this.ids.run(id, async () => {
      const rec = await this.store.read(id);
      const vm = rec ?? { uuid: id, qmpSocket: await this.store.socketPath(id) };
      const pid = rec ? await this.livePid(rec) : await this.findPid(vm);
      if (pid !== undefined) {
        const how = await stopVm(pid, vm, { quitTimeoutMs: this.stopTimeoutMs, killTimeoutMs: this.stopTimeoutMs });
        this.log.info({ id, name: rec?.name, pid, how }, 'VM stopped');
      }
      await this.store.remove(rec ?? { uuid: id });
    });
  }

  async listInstances(tags: Record<string, string>): Promise<Instance[]> {
    const out: Instance[] = [];
    for (const rec of await this.store.list()) {
      const pid = await this.livePid(rec);
      if (pid === undefined) {
        if (rec.pid === null && Date.now() - Date.parse(rec.createdAt) < this.startTimeoutMs * 2) continue;
        await this.reapStale(rec);
        continue;
      }
      if (matchesTags(rec.tags, tags)) out.push(toInstance(rec));
    }
    return out.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
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

  /** The record's process, re-found by command line when the PID in the record is stale or unset. */
  private async livePid(rec: VmRecord): Promise<number | undefined> {
    if (await isVmProcess(rec.pid, rec)) return rec.pid ?? undefined;
    return this.findPid(rec);
  }

  private async findPid(vm: Pick<VmRecord, 'uuid' | 'qmpSocket'>): Promise<number | undefined> {
    for (const pid of await findPidsWithArg(vm.uuid)) {
      if (await isVmProcess(pid, vm)) return pid;
    }
    return undefined;
  }

  private async findLiveByName(name: string): Promise<VmRecord | undefined> {
    let found: VmRecord | undefined;
    for (const rec of await this.store.list()) {
      if (rec.name !== name) continue;
      const pid = await this.livePid(rec);
      if (pid === undefined) {
        await this.reapStale(rec);
      } else if (!found || rec.createdAt < found.createdAt) {
        found = { ...rec, pid };
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

  private async discard(rec: VmRecord): Promise<void> {
    try {
      if (rec.pid !== null) await stopVm(rec.pid, rec, { quitTimeoutMs: 500, killTimeoutMs: this.stopTimeoutMs });
    } finally {
      await this.store.remove(rec);
    }
  }
}

function toInstance(rec: VmRecord): Instance {
  return {
    id: rec.uuid,
    name: rec.name,
    ips: [rec.ip],
    tags: { ...rec.tags },
    createdAt: new Date(rec.createdAt),
    state: 'running',
  };
}
