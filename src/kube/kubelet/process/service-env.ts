// The service environment variables of kubelet's getServiceEnvVarMap and
// pkg/kubelet/envvars/envvars.go FromServices: `<NAME>_SERVICE_HOST`, `<NAME>_SERVICE_PORT[_<PORT>]`
// and the Docker-link variables `<NAME>_PORT[_<port>_<PROTO>[_PROTO|_PORT|_ADDR]]`.
//
// The master service (`kubernetes` in `default`) is always present, whatever
// `enableServiceLinks` says, but points at the embedded API server's real address: its
// ClusterIP (10.96.0.1) routes nowhere on this machine.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';

export interface ApiServerAddress {
  host: string;
  port: number;
}

interface ServicePort {
  name?: string;
  port: number;
  protocol?: string;
}

/** makeEnvVariableName: upper case, `-` → `_`. */
function envName(name: string): string {
  return name.replaceAll('-', '_').toUpperCase();
}

function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

function serviceVars(name: string, clusterIP: string, ports: ServicePort[], into: Record<string, string>): void {
  if (ports.length === 0) return;
  const prefix = envName(name);
  into[`${prefix}_SERVICE_HOST`] = clusterIP;
  into[`${prefix}_SERVICE_PORT`] = String(ports[0].port);
  for (const p of ports) if (p.name) into[`${prefix}_SERVICE_PORT_${envName(p.name)}`] = String(p.port);
  ports.forEach((p, i) => {
    const protocol = p.protocol || 'TCP';
    const url = `${protocol.toLowerCase()}://${joinHostPort(clusterIP, p.port)}`;
    // Docker special-cases the first port.
    if (i === 0) into[`${prefix}_PORT`] = url;
    const portPrefix = `${prefix}_PORT_${p.port}_${protocol.toUpperCase()}`;
    into[portPrefix] = url;
    into[`${portPrefix}_PROTO`] = protocol.toLowerCase();
    into[`${portPrefix}_PORT`] = String(p.port);
    into[`${portPrefix}_ADDR`] = clusterIP;
  });
}

/**
 * The service variables a pod in `namespace` sees. `services` are that namespace's Services;
 * the master service is synthesised from `apiServer`.
 */
export function serviceEnvironment(
  namespace: string,
  enableServiceLinks: boolean,
  services: readonly JsonObject[],
  apiServer: ApiServerAddress,
): Record<string, string> {
  const env: Record<string, string> = {};
  serviceVars('kubernetes', apiServer.host, [{ name: 'https', port: apiServer.port, protocol: 'TCP' }], env);
  if (!enableServiceLinks) return env;
  for (const svc of services) {
    const meta = (svc.metadata ?? {}) as JsonObject;
    const spec = (svc.spec ?? {}) as JsonObject;
    const name = String(meta.name ?? '');
    // The master service is the one above; in another namespace a Service of the same name wins,
    // as in kube (its map is keyed by name and the namespace's own Service overwrites).
    if (meta.namespace === 'default' && name === 'kubernetes') continue;
    if (meta.namespace !== undefined && meta.namespace !== namespace) continue;
    // IsServiceIPSet: headless (`None`) and IP-less Services get no variables.
    const clusterIP = typeof spec.clusterIP === 'string' ? spec.clusterIP : '';
    if (clusterIP === '' || clusterIP === 'None') continue;
    const ports = ((spec.ports ?? []) as JsonObject[]).map((p) => ({
      name: typeof p.name === 'string' ? p.name : undefined,
      port: Number(p.port),
      protocol: typeof p.protocol === 'string' ? p.protocol : undefined,
    }));
    if (name === 'kubernetes') for (const k of Object.keys(env)) if (k.startsWith('KUBERNETES_')) delete env[k];
    serviceVars(name, clusterIP, ports, env);
  }
  return env;
}
