// An in-process cloud for controller tests and benchmarks: every call costs `latencyMs`, fails
// with probability `failureRate` (seeded, so a run is reproducible), creates stop at `maxInstances`,
// and the provider counts calls and the highest number of deletes in flight at once. Tests can also
// set a create fault (a VM that is made and then reported as failed, or that appears late) and
// watch every instance made or deleted, to check an invariant at each step.
import { seededRandom } from '../../apimachinery/index.ts';
import { ProviderError, QuotaExceededError, InvalidInstanceIdError } from './errors.ts';
import { KeyedLock } from './keyed-lock.ts';
import { generateInstanceName } from './naming.ts';
import { matchesTags } from './tags.ts';
import type { CapacityRequest, ProviderCapacity } from './capacity.ts';
import type { CloudProvider, CreateInstanceRequest, Instance } from './types.ts';
import { delay } from './wait.ts';
import { get, parseNonNegativeInt, ConfigCheck } from './config.ts';
import { DirectoryStore, MemoryStore } from './simulated-store.ts';
import type { SimStore, SimVm } from './simulated-store.ts';

export interface SimulatedOptions {
  /** Delay added to every call. */
  latencyMs?: number;
  /** 0..1: chance that a call fails (before it has any effect). */
  failureRate?: number;
  /** Seed of the failure RNG. */
  seed?: number;
  /** Creates beyond this many live instances fail with QuotaExceededError. */
  maxInstances?: number;
  /** Keep the instances in this directory, shared by every process given the same one (SIMULATED_STATE_DIR). */
  stateDir?: string;
  /** Clock for createdAt (tests of grace periods). */
  now?: () => Date;
}

export type SimulatedOp = 'create' | 'delete' | 'list';

/** How creates misbehave (tests): a cloud whose VMs never come up, or come up after the caller gave up. */
export interface CreateFault {
  /** The instance is made (or adopted), then the call fails with this message: CAA#1737's corrupt image. */
  failAfterCreate?: string;
  /** The instance is made, and the call returns, only this long after the call (and its latency). */
  delayMs?: number;
  /** How many creates misbehave; default every one until the fault is cleared. */
  times?: number;
}

/** One change of the simulated cloud, with every instance that exists right after it. */
export interface SimulatedChange {
  type: 'created' | 'deleted';
  instance: Instance;
  instances: Instance[];
}

export interface SimulatedStats {
  calls: Record<SimulatedOp, number>;
  failures: Record<SimulatedOp, number>;
  inFlightDeletes: number;
  maxConcurrentDeletes: number;
  inFlight: number;
  maxConcurrentCalls: number;
}

/** Thrown for injected failures; retryable, as a cloud's transient 5xx would be. */
export class SimulatedFailureError extends ProviderError {
  constructor(op: SimulatedOp) {
    super('simulated', `simulated: injected failure in ${op}`, { retryable: true });
    this.name = 'SimulatedFailureError';
  }
}

export class SimulatedProvider implements CloudProvider {
  readonly name = 'simulated';
  private readonly vms: SimStore;
  private readonly names = new KeyedLock();
  private readonly random: () => number;
  private readonly now: () => Date;
  private readonly forcedFailures: Record<SimulatedOp, number> = { create: 0, delete: 0, list: 0 };
  private createFault: CreateFault | undefined;
  private readonly watchers = new Set<(change: SimulatedChange) => void>();
  readonly stats: SimulatedStats = {
    calls: { create: 0, delete: 0, list: 0 },
    failures: { create: 0, delete: 0, list: 0 },
    inFlightDeletes: 0,
    maxConcurrentDeletes: 0,
    inFlight: 0,
    maxConcurrentCalls: 0,
  };

  constructor(readonly options: SimulatedOptions = {}) {
    const rate = options.failureRate ?? 0;
    if (!(rate >= 0 && rate <= 1)) throw new RangeError(`failureRate must be within 0..1, got ${rate}`);
    this.random = seededRandom(options.seed ?? 1);
    this.vms = options.stateDir ? new DirectoryStore(options.stateDir) : new MemoryStore();
    this.now = options.now ?? (() => new Date());
  }

  /** Makes the next `count` calls of `op` fail, on top of the random failures. */
  failNext(op: SimulatedOp, count = 1): void {
    this.forcedFailures[op] += count;
  }

  /** Sets (or, with undefined, clears) how the next creates misbehave. */
  setCreateFault(fault: CreateFault | undefined): void {
    this.createFault = fault ? { ...fault } : undefined;
  }

  /** Calls `fn` synchronously after every instance made or deleted; returns the removal. */
  watch(fn: (change: SimulatedChange) => void): () => void {
    this.watchers.add(fn);
    return () => this.watchers.delete(fn);
  }

  /** What a cloud console shows: every instance, regardless of tags. */
  snapshot(): Instance[] {
    return [...this.vms.values()].map((v) => structuredClone(v.instance));
  }

  /** The instance disappears without a delete call (someone removed it by hand). */
  removeOutOfBand(id: string): boolean {
    const gone = this.watched(id);
    const deleted = this.vms.delete(id);
    if (deleted && gone) this.notify('deleted', gone.instance);
    return deleted;
  }

  resetStats(): void {
    for (const op of ['create', 'delete', 'list'] as const) {
      this.stats.calls[op] = 0;
      this.stats.failures[op] = 0;
    }
    this.stats.maxConcurrentDeletes = this.stats.inFlightDeletes;
    this.stats.maxConcurrentCalls = this.stats.inFlight;
  }

  async createInstance(req: CreateInstanceRequest): Promise<Instance> {
    return this.call('create', async () => {
      const fault = this.takeCreateFault();
      if (fault?.delayMs) await delay(fault.delayMs);
      const vm = await this.makeInstance(req);
      if (fault?.failAfterCreate) {
        throw new ProviderError('simulated', `simulated: instance ${vm.id} (${vm.name}): ${fault.failAfterCreate}`);
      }
      return vm;
    });
  }

  private takeCreateFault(): CreateFault | undefined {
    const fault = this.createFault;
    if (fault?.times !== undefined && --fault.times <= 0) this.createFault = undefined;
    return fault;
  }

  /** The instance about to be deleted, when someone watches. */
  private watched(id: string): SimVm | undefined {
    return this.watchers.size > 0 ? this.vms.values().find((v) => v.instance.id === id) : undefined;
  }

  private notify(type: SimulatedChange['type'], instance: Instance): void {
    if (this.watchers.size === 0) return;
    const change = { type, instance: structuredClone(instance), instances: this.snapshot() };
    for (const fn of this.watchers) fn(change);
  }

  private makeInstance(req: CreateInstanceRequest): Promise<Instance> {
    const name = generateInstanceName(req.podName, req.sandboxId);
    return this.names.run(name, async () => {
      const existing = this.vms.byName(name);
      if (existing) return structuredClone(existing.instance);
      const max = this.options.maxInstances;
      if (max !== undefined && this.vms.size >= max) {
        throw new QuotaExceededError('simulated', `${this.vms.size} of ${max} instances in use`);
      }
      const n = this.vms.claimId();
      const instance: Instance = {
        id: `sim-${n}`,
        name,
        // 10.99.0.0/16, one address per instance number: fake, like the VM.
        ips: [`10.99.${(n >> 8) & 255}.${n & 255}`],
        tags: { ...req.tags },
        createdAt: this.now(),
        state: 'running',
      };
      this.vms.set({ instance, podNamespace: req.podNamespace });
      this.notify('created', instance);
      return structuredClone(instance);
    });
  }

  async deleteInstance(id: string): Promise<boolean> {
    if (!/^sim-\d+$/.test(id)) throw new InvalidInstanceIdError('simulated', id, 'sim-<n>');
    this.stats.inFlightDeletes++;
    this.stats.maxConcurrentDeletes = Math.max(this.stats.maxConcurrentDeletes, this.stats.inFlightDeletes);
    try {
      return await this.call('delete', async () => {
        const gone = this.watched(id);
        const existed = this.vms.delete(id);
        if (existed && gone) this.notify('deleted', gone.instance);
        return existed;
      });
    } finally {
      this.stats.inFlightDeletes--;
    }
  }

  async listInstances(tags: Record<string, string>): Promise<Instance[]> {
    return this.call('list', async () =>
      [...this.vms.values()].filter((v) => matchesTags(v.instance.tags, tags)).map((v) => structuredClone(v.instance)),
    );
  }

  async verifyConfig(): Promise<void> {}

  /** SIMULATED_MAX_INSTANCES is its quota: every VM counts one, whatever its size. */
  async capacity(_size: CapacityRequest): Promise<ProviderCapacity> {
    const max = this.options.maxInstances;
    if (max === undefined) {
      return { available: undefined, reason: 'Unknown', message: 'no SIMULATED_MAX_INSTANCES: no quota' };
    }
    const used = this.vms.size;
    const available = Math.max(0, max - used);
    return { available, reason: 'Quota', message: `${used} of ${max} simulated instances in use: ${available} more` };
  }

  private async call<T>(op: SimulatedOp, fn: () => Promise<T>): Promise<T> {
    this.stats.calls[op]++;
    this.stats.inFlight++;
    this.stats.maxConcurrentCalls = Math.max(this.stats.maxConcurrentCalls, this.stats.inFlight);
    try {
      if (this.options.latencyMs) await delay(this.options.latencyMs);
      // Draw on every call, so the forced failures do not shift the seeded sequence.
      const unlucky = this.random() < (this.options.failureRate ?? 0);
      if (this.forcedFailures[op] > 0 || unlucky) {
        if (this.forcedFailures[op] > 0) this.forcedFailures[op]--;
        this.stats.failures[op]++;
        throw new SimulatedFailureError(op);
      }
      return await fn();
    } finally {
      this.stats.inFlight--;
    }
  }
}

/** Settings from the provider config map, for `createProvider('simulated', config)`. */
export function simulatedOptionsFromConfig(config: Record<string, string>): SimulatedOptions {
  const check = new ConfigCheck('simulated', config)
    .check('SIMULATED_LATENCY_MS', (v) => parseNonNegativeInt(v) !== undefined, 'milliseconds')
    .check('SIMULATED_FAILURE_RATE', (v) => /^(0(\.\d+)?|1(\.0+)?)$/.test(v), 'number within 0..1')
    .check('SIMULATED_SEED', (v) => parseNonNegativeInt(v) !== undefined, 'integer')
    .check('SIMULATED_MAX_INSTANCES', (v) => parseNonNegativeInt(v) !== undefined, 'integer')
    .check('SIMULATED_STATE_DIR', (v) => v.startsWith('/'), 'absolute path');
  check.throwIfAny();
  const opt: SimulatedOptions = {};
  const num = (k: string): number | undefined => (get(config, k) === '' ? undefined : Number(get(config, k)));
  opt.latencyMs = num('SIMULATED_LATENCY_MS');
  opt.failureRate = num('SIMULATED_FAILURE_RATE');
  opt.seed = num('SIMULATED_SEED');
  opt.maxInstances = num('SIMULATED_MAX_INSTANCES');
  if (get(config, 'SIMULATED_STATE_DIR')) opt.stateDir = get(config, 'SIMULATED_STATE_DIR');
  return opt;
}
