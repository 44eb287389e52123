// The parts of a pod the mutation reads, checked for their JSON types first. The API server sends
// whatever a client wrote (it decodes the pod only after mutating admission), and upstream's Go
// webhook refuses a pod it cannot decode with 400; reading a wrong type as if it were right would
// answer 500, and with `failurePolicy: Fail` every such pod create would look like our outage.
import { AdmissionDenied } from '../../runtime/index.ts';

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function malformed(path: string, want: string, got: unknown): AdmissionDenied {
  return new AdmissionDenied(`cannot decode the pod: ${path} must be ${want}, got ${typeName(got)}`, 400);
}

function optionalObject(v: unknown, path: string): void {
  if (v !== undefined && v !== null && !isObject(v)) throw malformed(path, 'an object', v);
}

function annotations(v: unknown): void {
  optionalObject(v, 'metadata.annotations');
  for (const [key, value] of Object.entries(v ?? {})) {
    if (typeof value !== 'string') throw malformed(`metadata.annotations[${key}]`, 'a string', value);
  }
}

function resourceList(list: unknown, path: string): void {
  if (list === undefined || list === null) return;
  if (!isObject(list)) throw malformed(path, 'an object', list);
  for (const [name, v] of Object.entries(list)) {
    if (typeof v !== 'string' && typeof v !== 'number') throw malformed(`${path}.${name}`, 'a quantity', v);
  }
}

function containers(spec: Record<string, unknown>, key: string): void {
  const list = spec[key];
  if (list === undefined || list === null) return;
  if (!Array.isArray(list)) throw malformed(`spec.${key}`, 'a list of containers', list);
  list.forEach((c: unknown, i) => {
    const path = `spec.${key}[${i}]`;
    if (!isObject(c)) throw malformed(path, 'a container (an object)', c);
    const r = c.resources;
    if (r === undefined || r === null) return;
    if (!isObject(r)) throw malformed(`${path}.resources`, 'an object', r);
    resourceList(r.requests, `${path}.resources.requests`);
    resourceList(r.limits, `${path}.resources.limits`);
    if (r.claims !== undefined && r.claims !== null && !Array.isArray(r.claims))
      throw malformed(`${path}.resources.claims`, 'a list', r.claims);
  });
}

/** Throws AdmissionDenied (400) naming the first field of a wrong JSON type. */
export function assertPodShape(pod: unknown): void {
  if (!isObject(pod)) throw malformed('the object', 'a pod (an object)', pod);
  if (!isObject(pod.metadata)) throw malformed('metadata', 'an object', pod.metadata);
  annotations(pod.metadata.annotations);
  optionalObject(pod.spec, 'spec');
  const spec = pod.spec;
  if (!isObject(spec)) return;
  if (
    spec.runtimeClassName !== undefined &&
    spec.runtimeClassName !== null &&
    typeof spec.runtimeClassName !== 'string'
  )
    throw malformed('spec.runtimeClassName', 'a string', spec.runtimeClassName);
  containers(spec, 'containers');
  containers(spec, 'initContainers');
}
