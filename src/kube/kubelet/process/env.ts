// A container's environment, as kubelet's makeEnvironmentVariables (pkg/kubelet/kubelet_pods.go):
// the service variables underneath, then `envFrom` (later sources overwrite earlier ones; keys
// that are not valid variable names are skipped), then `env` in order, each `value` expanded
// against the variables defined so far and the service variables.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { isEnvVarName } from '../../builtins/names.ts';
import { ContainerConfigError } from './container-config.ts';
import { containerResourceValue, podFieldValue, type PodAddresses, type ResourceFieldSelector } from './downward.ts';
import { expand, mappingFuncFor } from './expansion.ts';
import { requireObject, type ObjectReader } from './objects.ts';
import { serviceEnvironment, type ApiServerAddress } from './service-env.ts';

export interface EnvironmentInput {
  pod: JsonObject;
  container: JsonObject;
  reader: ObjectReader;
  apiServer: ApiServerAddress;
  addresses: PodAddresses;
  /** The node's `status.allocatable`: what unset limits report through resourceFieldRef. */
  allocatable: Record<string, unknown>;
}

function stringMap(v: unknown): Record<string, string> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, string>) : {};
}

/** A Secret's `data` values are base64 in the API; the container sees the bytes. */
export function secretValue(encoded: string): string {
  return Buffer.from(encoded, 'base64').toString('utf8');
}

export function makeEnvironmentVariables(input: EnvironmentInput): Record<string, string> {
  const { pod, container, reader } = input;
  const namespace = String((pod.metadata as JsonObject | undefined)?.namespace ?? '');
  const spec = (pod.spec ?? {}) as JsonObject;
  const serviceEnv = serviceEnvironment(
    namespace,
    spec.enableServiceLinks !== false,
    reader.services(namespace),
    input.apiServer,
  );
  const cache = new Map<string, JsonObject | undefined>();
  const read = (kind: 'configmaps' | 'secrets', name: string, optional: boolean): JsonObject | undefined => {
    const key = `${kind}/${name}`;
    if (!cache.has(key)) {
      const obj = requireObject(reader, kind, namespace, name, optional);
      if (!obj) return undefined;
      cache.set(key, obj);
    }
    return cache.get(key);
  };

  const env: Record<string, string> = {};
  for (const source of (container.envFrom ?? []) as JsonObject[]) {
    const prefix = typeof source.prefix === 'string' ? source.prefix : '';
    const ref = (source.configMapRef ?? source.secretRef) as JsonObject | undefined;
    if (!ref) continue;
    const kind = source.configMapRef ? 'configmaps' : 'secrets';
    const obj = read(kind, String(ref.name ?? ''), ref.optional === true);
    if (!obj) continue;
    for (const [k, v] of Object.entries(stringMap(obj.data))) {
      const name = prefix + k;
      // Kube records these as an InvalidEnvironmentVariableNames event and starts the container.
      if (isEnvVarName(name).length > 0) continue;
      env[name] = kind === 'secrets' ? secretValue(v) : v;
    }
  }

  const mapping = mappingFuncFor(env, serviceEnv);
  for (const envVar of (container.env ?? []) as JsonObject[]) {
    const name = String(envVar.name ?? '');
    const value = typeof envVar.value === 'string' ? envVar.value : '';
    const from = envVar.valueFrom as JsonObject | undefined;
    if (value !== '' || !from) {
      env[name] = expand(value, mapping);
      continue;
    }
    if (from.fieldRef) {
      env[name] = podFieldValue(String((from.fieldRef as JsonObject).fieldPath ?? ''), pod, input.addresses);
    } else if (from.resourceFieldRef) {
      const fs = from.resourceFieldRef as unknown as ResourceFieldSelector;
      env[name] = containerResourceValue(fs, pod, container, input.allocatable);
    } else if (from.configMapKeyRef || from.secretKeyRef) {
      const ref = (from.configMapKeyRef ?? from.secretKeyRef) as JsonObject;
      const kind = from.configMapKeyRef ? 'configmaps' : 'secrets';
      const objName = String(ref.name ?? '');
      const key = String(ref.key ?? '');
      const optional = ref.optional === true;
      const obj = read(kind, objName, optional);
      if (!obj) continue;
      const data = stringMap(obj.data);
      if (!Object.hasOwn(data, key)) {
        if (optional) continue;
        const what = kind === 'configmaps' ? 'ConfigMap' : 'Secret';
        throw new ContainerConfigError(`couldn't find key ${key} in ${what} ${namespace}/${objName}`);
      }
      env[name] = kind === 'secrets' ? secretValue(data[key]) : data[key];
    } else env[name] = '';
  }
  return { ...serviceEnv, ...env };
}
