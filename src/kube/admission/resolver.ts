// The default Service resolver: there is no cluster network, so a Service reference is dialled
// at an address its Endpoints object lists. A webhook served by a local process registers a
// Service plus Endpoints pointing at 127.0.0.1:<port>.
import type { Storage } from '../storage/storage.ts';
import type { JsonObject } from '../../apimachinery/meta/index.ts';
import type { ServiceAddress, ServiceResolver } from './types.ts';

interface EndpointPort {
  name?: string;
  port?: number;
}

interface Subset {
  addresses?: Array<{ ip?: string; hostname?: string }>;
  ports?: EndpointPort[];
}

/** Name of the Service port numbered `port`, which Endpoints ports are matched by. */
function servicePortName(storage: Storage, namespace: string, name: string, port: number): string | undefined {
  const stored = storage.get(`/core/services/${namespace}/${name}`);
  if (!stored) return undefined;
  const svc = JSON.parse(stored.json) as JsonObject;
  const ports = ((svc.spec as JsonObject | undefined)?.ports ?? []) as Array<{ name?: string; port?: number }>;
  return ports.find((p) => p.port === port)?.name;
}

export function endpointsResolver(storage: Storage): ServiceResolver {
  return (namespace, name, port): ServiceAddress => {
    const stored = storage.get(`/core/endpoints/${namespace}/${name}`);
    const subsets = stored ? (((JSON.parse(stored.json) as JsonObject).subsets ?? []) as Subset[]) : [];
    const portName = servicePortName(storage, namespace, name, port);
    for (const subset of subsets) {
      const address = subset.addresses?.find((a) => a.ip || a.hostname);
      const ports = subset.ports ?? [];
      // Only one port, or none named: take the first, as a single-port Service's Endpoints have it.
      const chosen = (portName !== undefined && ports.find((p) => (p.name ?? '') === portName)) || ports[0];
      if (address && chosen?.port) return { host: (address.ip || address.hostname)!, port: chosen.port };
    }
    throw new Error(`no endpoints available for service "${name}"`);
  };
}
