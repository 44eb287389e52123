// Entry point for built-in defaulting. kube-apiserver changes a built-in object in three places
// before it is stored: the scheme defaulters run while decoding, built-in admission plugins
// (ServiceAccount, DefaultTolerationSeconds, Priority) mutate it, and the kind's strategy
// prepares it on create. applyDefaults does all three, so that what we store is what
// kube-apiserver would store; update-time strategy work is prepareForUpdate in status.ts.
import type { JsonObject } from '../types.ts';
import { defaultCoreKind } from './defaults-core.ts';
import { defaultMiscKind } from './defaults-misc.ts';
import { defaultPod } from './defaults-pod.ts';
import { defaultWorkload, generateJobSelector, zeroWorkloadStatus } from './defaults-workloads.ts';
import { ensureObj, isObject, obj, objects, str } from './json.ts';
import type { DefaultsOptions } from './options.ts';
import { QUANTITY_FORMAT_ERROR, parseQuantity } from './quantity.ts';

export type { DefaultsOptions, PriorityClassInfo } from './options.ts';

const DS_TEMPLATE_GENERATION = 'deprecated.daemonset.template.generation';

/**
 * Applies kube-apiserver's defaults for a built-in kind in place. `op` selects the create-only
 * steps (admission defaults, status reset, generated selectors); unknown kinds are left alone.
 * May throw a 403 StatusError where the Priority admission plugin would refuse a Pod.
 */
export function applyDefaults(group: string, kind: string, obj: JsonObject, op: 'create' | 'update', opts: DefaultsOptions = {}): void {
  if (group === '' && kind === 'Pod') {
    defaultPod(obj, op, opts);
    return;
  }
  if (defaultWorkload(group, kind, obj)) {
    if (op === 'create') prepareWorkloadCreate(group, kind, obj);
    return;
  }
  if (group === '' && defaultCoreKind(kind, obj, op, opts)) return;
  defaultMiscKind(group, kind, obj, op);
}

/** The workload strategies' PrepareForCreate: status belongs to controllers, plus kind specifics. */
function prepareWorkloadCreate(group: string, kind: string, o: JsonObject): void {
  const zero = zeroWorkloadStatus(kind);
  if (zero) o.status = zero;
  if (group === 'apps' && kind === 'DaemonSet') {
    // apps/v1 carries the internal spec.templateGeneration in this annotation; it starts at 1.
    const annotations = ensureObj(ensureObj(o, 'metadata'), 'annotations');
    const current = Number(annotations[DS_TEMPLATE_GENERATION]);
    annotations[DS_TEMPLATE_GENERATION] = String(Number.isInteger(current) && current >= 1 ? current : 1);
  }
  if (group === 'batch' && kind === 'Job') generateJobSelector(o);
}

/** Every PodSpec a built-in object carries, with the field path kube reports it under. */
export function podSpecsOf(group: string, kind: string, o: JsonObject): { spec: JsonObject; path: string }[] {
  const spec = obj(o, 'spec');
  const at = (s: JsonObject | undefined, path: string): { spec: JsonObject; path: string }[] => (s ? [{ spec: s, path }] : []);
  switch (`${group}/${kind}`) {
    case '/Pod':
      return at(spec, 'spec');
    case '/PodTemplate':
      return at(obj(obj(o, 'template'), 'spec'), 'template.spec');
    case 'apps/Deployment':
    case 'apps/ReplicaSet':
    case 'apps/DaemonSet':
    case 'apps/StatefulSet':
    case 'batch/Job':
    case '/ReplicationController':
      return at(obj(obj(spec, 'template'), 'spec'), 'spec.template.spec');
    case 'batch/CronJob':
      return at(obj(obj(obj(obj(spec, 'jobTemplate'), 'spec'), 'template'), 'spec'), 'spec.jobTemplate.spec.template.spec');
    default:
      return [];
  }
}

function resourceLists(group: string, kind: string, o: JsonObject): unknown[] {
  const lists: unknown[] = [];
  for (const { spec } of podSpecsOf(group, kind, o)) {
    lists.push(spec.overhead);
    for (const key of ['containers', 'initContainers', 'ephemeralContainers']) {
      for (const c of objects(spec, key)) lists.push(obj(c, 'resources')?.limits, obj(c, 'resources')?.requests);
    }
  }
  if (group === '' && kind === 'Node') lists.push(obj(o, 'status')?.capacity, obj(o, 'status')?.allocatable);
  if (group === '' && kind === 'PersistentVolumeClaim') {
    lists.push(obj(obj(o, 'spec'), 'resources')?.requests, obj(obj(o, 'spec'), 'resources')?.limits, obj(o, 'status')?.capacity);
  }
  if (group === '' && kind === 'PersistentVolume') lists.push(obj(o, 'spec')?.capacity);
  if (group === '' && kind === 'ResourceQuota') lists.push(obj(o, 'spec')?.hard);
  return lists;
}

/**
 * kube-apiserver refuses to decode an object whose quantities do not parse (a 400, before any
 * defaulting or validation). Returns that error message, or undefined when the object decodes.
 */
export function decodeError(group: string, kind: string, o: JsonObject): string | undefined {
  const bad = resourceLists(group, kind, o).some(
    (list) => isObject(list) && Object.values(list).some((v) => v !== null && v !== undefined && parseQuantity(v) === undefined),
  );
  if (!bad) return undefined;
  const apiVersion = str(o, 'apiVersion') ?? (group ? `${group}/v1` : 'v1');
  const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
  return `${kind} in version "${version}" cannot be handled as a ${kind}: ${QUANTITY_FORMAT_ERROR}`;
}
