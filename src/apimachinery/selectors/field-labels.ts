// Which field selector labels each kind accepts (the scheme's field label conversion funcs, as
// registered in Kubernetes 1.33) and the values they are matched against (each registry
// strategy's ToSelectableFields). The two lists differ upstream and we keep them apart:
// e.g. apps/v1 ReplicaSets compute `status.replicas` but reject it in a selector.
import { goQuote } from '../strings/goquote.ts';

/** Custom resources are not in the tables; callers describe them from their CRD. */
export interface CustomResourceFields {
  namespaced: boolean;
  /** CRD `selectableFields[].jsonPath` (".spec.color") or the resulting label ("spec.color"). */
  selectableFields?: readonly string[];
}

export interface FieldLabelOptions {
  custom?: CustomResourceFields;
}

interface ConversionRule {
  labels: ReadonlySet<string>;
  /** Labels accepted under an old name and matched under the new one. */
  renames?: Readonly<Record<string, string>>;
  error: (label: string) => string;
}

const notSupported = (label: string): string => `field label not supported: ${label}`;

const EVENT_LABELS = [
  'involvedObject.kind',
  'involvedObject.namespace',
  'involvedObject.name',
  'involvedObject.uid',
  'involvedObject.apiVersion',
  'involvedObject.resourceVersion',
  'involvedObject.fieldPath',
  'reason',
  'reportingComponent',
  'source',
  'type',
  'metadata.namespace',
  'metadata.name',
];

const rule = (labels: string[], error = notSupported, renames?: Record<string, string>): ConversionRule => ({
  labels: new Set(labels),
  error,
  renames,
});

const RULES: Record<string, ConversionRule> = {
  '/pods': rule(
    [
      'metadata.name',
      'metadata.namespace',
      'spec.nodeName',
      'spec.restartPolicy',
      'spec.schedulerName',
      'spec.serviceAccountName',
      'spec.hostNetwork',
      'status.phase',
      'status.podIP',
      'status.podIPs',
      'status.nominatedNodeName',
    ],
    notSupported,
    // Old v1 clients send spec.host.
    { 'spec.host': 'spec.nodeName' },
  ),
  '/nodes': rule(['metadata.name', 'spec.unschedulable']),
  '/replicationcontrollers': rule(['metadata.name', 'metadata.namespace', 'status.replicas']),
  '/events': rule(EVENT_LABELS),
  'events.k8s.io/events': rule(EVENT_LABELS),
  '/namespaces': rule(['status.phase', 'metadata.name']),
  '/secrets': rule(['type', 'metadata.namespace', 'metadata.name']),
  '/services': rule(['metadata.namespace', 'metadata.name', 'spec.clusterIP', 'spec.type']),
  'batch/jobs': rule(
    ['metadata.name', 'metadata.namespace', 'status.successful'],
    (label) => `field label ${goQuote(label)} not supported for Job`,
  ),
  'certificates.k8s.io/certificatesigningrequests': rule(['metadata.name', 'spec.signerName']),
};

// Kinds without a registered conversion get runtime.DefaultMetaV1FieldSelectorConversion.
const DEFAULT_RULE = rule(
  ['metadata.name', 'metadata.namespace'],
  (label) => `${goQuote(label)} is not a known field selector: only "metadata.name", "metadata.namespace"`,
);

function customRule(custom: CustomResourceFields): ConversionRule {
  const labels = ['metadata.name', ...(custom.namespaced ? ['metadata.namespace'] : [])];
  return rule([...labels, ...(custom.selectableFields ?? []).map(selectableFieldLabel)]);
}

function conversionRule(group: string, resource: string, opts: FieldLabelOptions): ConversionRule {
  if (opts.custom) return customRule(opts.custom);
  return RULES[`${group}/${resource}`] ?? DEFAULT_RULE;
}

/** The labels a field selector may name for this resource (old aliases included). */
export function supportedFieldLabels(group: string, resource: string, opts: FieldLabelOptions = {}): Set<string> {
  const r = conversionRule(group, resource, opts);
  return new Set([...r.labels, ...Object.keys(r.renames ?? {})]);
}

/** The scheme's ConvertFieldLabel: the label to match under, or the exact upstream error. */
export function convertFieldLabel(
  group: string,
  resource: string,
  label: string,
  opts: FieldLabelOptions = {},
): { label: string } | { error: string } {
  const r = conversionRule(group, resource, opts);
  const renamed = r.renames?.[label];
  if (renamed) return { label: renamed };
  return r.labels.has(label) ? { label } : { error: r.error(label) };
}

export function selectableFieldLabel(jsonPath: string): string {
  return jsonPath.startsWith('.') ? jsonPath.slice(1) : jsonPath;
}
