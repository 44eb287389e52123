// An in-process cloud for controller tests and benchmarks: every call costs `latencyMs`, fails
// with probability `failureRate` (seeded, so a run is reproducible), creates stop at `maxInstances`,
// and the provider counts calls and the highest number of deletes in flight at once.
import { seededRandom } from '../../apimachinery/index.ts';
import { ProviderError, QuotaExceededError, InvalidInstanceIdError } from './errors.ts';
import { KeyedLock } from './keyed-lock.ts';
import { generateInstanceName } from './naming.ts';
import { matchesTags } from './tags.ts';
import type { CloudProvider, CreateInstanceRequest, Instance } from './types.ts';
import { delay } from './wait.ts';
import { get, parseNonNegativeInt, ConfigCheck } from './config.ts';
import { DirectoryStore, MemoryStore } from './simulated-store.ts';
import type { SimStore } from './simulated-store.ts';

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

  /** What a cloud console shows: every instance, regardless of tags. */
  snapshot(): Instance[] {
    return [...this.vms.values()].map((v) => structuredClone(v.instance));
  }

  /** The instance disappears without a delete call (someone removed it by hand). */
  removeOutOfBand(id: string): boolean {
    return this.vms.delete(id);
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
    return this.call('create', () => {
      const name = generateInstanceName(req.podName, req.sandboxId);
      return this.names.run(name, async () => {
        const existing = [...this.vms.values()].find((v) => v.instance.name === name);
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
        return structuredClone(instance);
      });
    });
  }

  async deleteInstance(id: string): Promise<void> {
    if (!/^sim-\d+$/.test(id)) throw new InvalidInstanceIdError('simulated', id, 'sim-<n>');
    this.stats.inFlightDeletes++;
    this.stats.maxConcurrentDeletes = Math.max(this.stats.maxConcurrentDeletes, this.stats.inFlightDeletes);
    try {
      await this.call('delete', async () => {
        this.vms.delete(id);
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
