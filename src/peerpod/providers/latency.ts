// Slow creates and deletes for fault tests, on any provider: a cloud's VM exists for a while before
// its create call returns (it boots, the provider waits for an IP) and after its delete call was
// made (it shuts down). A caller killed in those windows holds a VM it has not recorded, or one it
// has not finished deleting: the windows a fault campaign must hit. Set in the provider config
// (peer-pods-cm), so every process building the provider from it gets the same latency:
//   PROVIDER_CREATE_LATENCY_MS  the create call returns this long after the VM was made
//   PROVIDER_DELETE_LATENCY_MS  the delete call waits this long before the VM is deleted
import { unknownCapacity } from './capacity.ts';
import type { CapacityRequest, ProviderCapacity } from './capacity.ts';
import { ConfigCheck, get, isNonNegativeInt, parseNonNegativeInt } from './config.ts';
import type { CloudProvider, CreateInstanceRequest, Instance } from './types.ts';
import { delay } from './wait.ts';

export const CREATE_LATENCY_KEY = 'PROVIDER_CREATE_LATENCY_MS';
export const DELETE_LATENCY_KEY = 'PROVIDER_DELETE_LATENCY_MS';

export interface Latency {
  createMs: number;
  deleteMs: number;
}

/** The latency the config asks for; throws ProviderConfigError on a value that is not milliseconds. */
export function latencyFromConfig(name: string, config: Record<string, string>): Latency {
  new ConfigCheck(name, config)
    .check(CREATE_LATENCY_KEY, isNonNegativeInt, 'milliseconds')
    .check(DELETE_LATENCY_KEY, isNonNegativeInt, 'milliseconds')
    .throwIfAny();
  return {
    createMs: parseNonNegativeInt(get(config, CREATE_LATENCY_KEY)) ?? 0,
    deleteMs: parseNonNegativeInt(get(config, DELETE_LATENCY_KEY)) ?? 0,
  };
}

/** `inner` with the latency added; `inner` itself when there is none. */
export function withLatency(inner: CloudProvider, latency: Latency): CloudProvider {
  if (latency.createMs === 0 && latency.deleteMs === 0) return inner;
  return new DelayedProvider(inner, latency);
}

class DelayedProvider implements CloudProvider {
  readonly name: string;

  constructor(
    private readonly inner: CloudProvider,
    private readonly latency: Latency,
  ) {
    this.name = inner.name;
  }

  async createInstance(req: CreateInstanceRequest): Promise<Instance> {
    const vm = await this.inner.createInstance(req);
    await delay(this.latency.createMs);
    return vm;
  }

  async deleteInstance(id: string): Promise<boolean | void> {
    await delay(this.latency.deleteMs);
    return this.inner.deleteInstance(id);
  }

  listInstances(tags: Record<string, string>): Promise<Instance[]> {
    return this.inner.listInstances(tags);
  }

  verifyConfig(): Promise<void> {
    return this.inner.verifyConfig();
  }

  capacity(size: CapacityRequest): Promise<ProviderCapacity> {
    return this.inner.capacity?.(size) ?? Promise.resolve(unknownCapacity(`${this.name} cannot tell its capacity`));
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }
}
