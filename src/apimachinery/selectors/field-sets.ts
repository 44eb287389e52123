// The flat field map a stored object is matched against, per kind (the strategies'
// ToSelectableFields). Missing labels read as "" upstream, so `x=` matches objects lacking x.
import { selectableFieldLabel, type FieldLabelOptions } from './field-labels.ts';

type Obj = Record<string, unknown>;

function obj(value: unknown): Obj {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : {};
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

// Go formats these fields with strconv.Itoa / fmt.Sprint on the typed struct, where an unset
// int is 0 and an unset bool is false.
function int(value: unknown): string {
  return typeof value === 'number' && Number.isFinite(value) ? String(Math.trunc(value)) : '0';
}

function bool(value: unknown): string {
  return value === true ? 'true' : 'false';
}

function podFields(pod: Obj): Record<string, string> {
  const spec = obj(pod.spec);
  const status = obj(pod.status);
  const podIPs = Array.isArray(status.podIPs) ? status.podIPs : [];
  // The internal type only keeps podIPs; v1's podIP is folded into it on decode.
  const podIP = podIPs.length ? str(obj(podIPs[0]).ip) : str(status.podIP);
  return {
    'spec.nodeName': str(spec.nodeName),
    'spec.restartPolicy': str(spec.restartPolicy),
    'spec.schedulerName': str(spec.schedulerName),
    // serviceAccount is the deprecated alias conversion copies in when the new field is empty.
    'spec.serviceAccountName': str(spec.serviceAccountName) || str(spec.serviceAccount),
    'spec.hostNetwork': bool(spec.hostNetwork),
    'status.phase': str(status.phase),
    'status.podIP': podIP,
    'status.nominatedNodeName': str(status.nominatedNodeName),
  };
}

// core/v1 and events.k8s.io/v1 Events share a store, so accept either shape.
function eventFields(event: Obj): Record<string, string> {
  const involved = obj(event.involvedObject ?? event.regarding);
  const reporting = str(event.reportingComponent) || str(event.reportingController);
  const source = str(obj(event.source ?? event.deprecatedSource).component) || reporting;
  return {
    'involvedObject.kind': str(involved.kind),
    'involvedObject.namespace': str(involved.namespace),
    'involvedObject.name': str(involved.name),
    'involvedObject.uid': str(involved.uid),
    'involvedObject.apiVersion': str(involved.apiVersion),
    'involvedObject.resourceVersion': str(involved.resourceVersion),
    'involvedObject.fieldPath': str(involved.fieldPath),
    reason: str(event.reason),
    reportingComponent: reporting,
    source,
    type: str(event.type),
  };
}

const KIND_FIELDS: Record<string, (o: Obj) => Record<string, string>> = {
  '/pods': podFields,
  '/nodes': (o) => ({ 'spec.unschedulable': bool(obj(o.spec).unschedulable) }),
  '/replicationcontrollers': (o) => ({ 'status.replicas': int(obj(o.status).replicas) }),
  'apps/replicasets': (o) => ({ 'status.replicas': int(obj(o.status).replicas) }),
  '/events': eventFields,
  'events.k8s.io/events': eventFields,
  // "name" is an upstream leftover kept for compatibility; no selector can reach it.
  '/namespaces': (o) => ({ 'status.phase': str(obj(o.status).phase), name: str(obj(o.metadata).name) }),
  '/secrets': (o) => ({ type: str(o.type) }),
  '/services': (o) => ({ 'spec.clusterIP': str(obj(o.spec).clusterIP), 'spec.type': str(obj(o.spec).type) }),
  'batch/jobs': (o) => ({ 'status.successful': int(obj(o.status).succeeded) }),
  'certificates.k8s.io/certificatesigningrequests': (o) => ({ 'spec.signerName': str(obj(o.spec).signerName) }),
};

/** fmt.Sprint of a JSON-decoded value, as CRD selectable fields are rendered. */
function sprint(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function lookup(root: unknown, label: string): unknown {
  let cur: unknown = root;
  for (const part of label.split('.')) {
    if (!cur || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Obj)[part];
  }
  return cur;
}

/**
 * The selectable fields of `object`: `metadata.name` and `metadata.namespace` for every kind,
 * plus the kind's own (built-in table, or `opts.custom.selectableFields` for a CR).
 */
export function fieldSet(
  group: string,
  resource: string,
  object: unknown,
  opts: FieldLabelOptions = {},
): Record<string, string> {
  const o = obj(object);
  const meta = obj(o.metadata);
  const base = { 'metadata.name': str(meta.name), 'metadata.namespace': str(meta.namespace) };
  if (opts.custom) {
    const extra: Record<string, string> = {};
    for (const path of opts.custom.selectableFields ?? []) {
      const label = selectableFieldLabel(path);
      extra[label] = sprint(lookup(o, label));
    }
    return { ...extra, ...base };
  }
  const kind = KIND_FIELDS[`${group}/${resource}`];
  return kind ? { ...kind(o), ...base } : base;
}
