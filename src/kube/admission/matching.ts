// Which webhooks a request reaches: kube-apiserver's rules.Matcher plus the namespace and object
// selectors (staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/{predicates,generic}).
import { labelSelectorFromObject } from '../../apimachinery/selectors/label.ts';
import { StatusError } from '../../apimachinery/errors/index.ts';
import type { Storage } from '../storage/storage.ts';
import type { JsonObject } from '../../apimachinery/meta/index.ts';
import type { AdmissionAttributes } from '../registry/context.ts';
import type { RuleWithOperations, Webhook } from './types.ts';

/** Admission never calls webhooks about webhook configurations, so a broken one can be removed. */
export function isExempt(attrs: AdmissionAttributes): boolean {
  return (
    attrs.def.group === 'admissionregistration.k8s.io' &&
    (attrs.def.resource === 'mutatingwebhookconfigurations' || attrs.def.resource === 'validatingwebhookconfigurations')
  );
}

function exactOrWildcard(items: string[], requested: string): boolean {
  return items.some((i) => i === '*' || i === requested);
}

function isNamespaceResource(attrs: AdmissionAttributes): boolean {
  return attrs.def.group === '' && attrs.def.resource === 'namespaces';
}

function scopeMatches(rule: RuleWithOperations, attrs: AdmissionAttributes): boolean {
  // Namespace objects are cluster-scoped, whatever namespace the request was attributed to.
  const clusterScoped = isNamespaceResource(attrs) || !attrs.def.namespaced;
  switch (rule.scope) {
    case '*':
      return true;
    case 'Namespaced':
      return !clusterScoped;
    case 'Cluster':
      return clusterScoped;
    default:
      return false;
  }
}

function resourceMatches(rule: RuleWithOperations, attrs: AdmissionAttributes): boolean {
  const sub = attrs.subresource ?? '';
  return rule.resources.some((r) => {
    const slash = r.indexOf('/');
    const res = slash < 0 ? r : r.slice(0, slash);
    const rsub = slash < 0 ? '' : r.slice(slash + 1);
    return (res === '*' || res === attrs.def.resource) && (rsub === '*' || rsub === sub);
  });
}

export function ruleMatches(rule: RuleWithOperations, attrs: AdmissionAttributes): boolean {
  return (
    scopeMatches(rule, attrs) &&
    exactOrWildcard(rule.operations, attrs.operation) &&
    exactOrWildcard(rule.apiGroups, attrs.def.group) &&
    exactOrWildcard(rule.apiVersions, attrs.def.version) &&
    resourceMatches(rule, attrs)
  );
}

function labelsOf(obj: JsonObject | undefined): Record<string, string> | undefined {
  const m = obj?.metadata as { labels?: Record<string, string> } | undefined;
  return m?.labels ?? undefined;
}

/**
 * The labels the namespaceSelector sees: a Namespace being created or updated offers its own
 * (new) labels; everything else those of the stored namespace. Undefined when the request is
 * about a cluster-scoped object, which a namespaceSelector never excludes.
 */
function namespaceLabels(
  storage: Storage,
  attrs: AdmissionAttributes,
  obj: JsonObject | undefined,
): Record<string, string> | undefined {
  if (isNamespaceResource(attrs)) {
    if (!attrs.subresource && (attrs.operation === 'CREATE' || attrs.operation === 'UPDATE'))
      return labelsOf(obj) ?? {};
  } else if (!attrs.def.namespaced || !attrs.namespace) {
    return undefined;
  }
  const nsName = isNamespaceResource(attrs) ? attrs.name : attrs.namespace!;
  const stored = storage.get(`/core/namespaces/${nsName}`);
  if (!stored) {
    throw new StatusError(404, 'NotFound', `namespaces "${nsName}" not found`, { name: nsName, kind: 'namespaces' });
  }
  return labelsOf(JSON.parse(stored.json) as JsonObject) ?? {};
}

export function webhookMatches(
  hook: Webhook,
  attrs: AdmissionAttributes,
  obj: JsonObject | undefined,
  old: JsonObject | undefined,
  storage: Storage,
): boolean {
  if (!hook.rules.some((r) => ruleMatches(r, attrs))) return false;
  const nsSelector = labelSelectorFromObject(hook.namespaceSelector);
  if (!nsSelector.empty) {
    const labels = namespaceLabels(storage, attrs, obj);
    if (labels !== undefined && !nsSelector.matches(labels)) return false;
  }
  const objSelector = labelSelectorFromObject(hook.objectSelector);
  if (!objSelector.empty) {
    const matchesObj = (o: JsonObject | undefined) => o !== undefined && objSelector.matches(labelsOf(o) ?? {});
    if (!matchesObj(obj) && !matchesObj(old)) return false;
  }
  return true;
}
