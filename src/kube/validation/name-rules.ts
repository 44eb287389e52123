// Per-kind metadata rules of Kubernetes 1.33: which format `metadata.name` must have, whether
// core's stricter finalizer check applies, and extra name limits. Every object also passes the
// generic path-segment check after its own validation, which only adds errors for kinds whose
// own rule is looser than that, so the rule here is the effective one.
import type { ObjectMetaOptions } from './metadata.ts';
import type { NameRule } from '../../apimachinery/validation/names.ts';

const RULES: Record<string, NameRule> = {
  '/namespaces': 'label',
  '/services': 'dns1035',
  // Legacy core/v1 Events skip ObjectMeta validation; only the generic check applies.
  '/events': 'path-segment',
  'apps/statefulsets': 'label',
  'certificates.k8s.io/certificatesigningrequests': 'path-segment',
  'rbac.authorization.k8s.io/roles': 'path-segment',
  'rbac.authorization.k8s.io/rolebindings': 'path-segment',
  'rbac.authorization.k8s.io/clusterroles': 'path-segment',
  'rbac.authorization.k8s.io/clusterrolebindings': 'path-segment',
  // `v1.` names the core group; the name must also be `<version>.<group>` (checked with the spec).
  'apiregistration.k8s.io/apiservices': 'path-segment',
};

/**
 * The effective name rule of a built-in resource. Custom resources, like most built-ins, use
 * DNS-1123 subdomains (apiextensions validates with NameIsDNSSubdomain).
 */
export function nameRuleFor(group: string, resource: string): NameRule {
  return RULES[`${group}/${resource}`] ?? 'subdomain';
}

// Kinds whose validation uses apimachinery's generic ObjectMeta checks instead of core's, and
// so accept unqualified finalizer names: CRDs, webhook configurations, Leases, core Events,
// and every custom resource.
const GENERIC_META: ReadonlySet<string> = new Set([
  '/events',
  'coordination.k8s.io/leases',
  'apiextensions.k8s.io/customresourcedefinitions',
  'admissionregistration.k8s.io/mutatingwebhookconfigurations',
  'admissionregistration.k8s.io/validatingwebhookconfigurations',
  'apiregistration.k8s.io/apiservices',
]);

/** The full validateObjectMeta options for a resource; `custom` marks custom resources. */
export function objectMetaOptionsFor(
  group: string,
  resource: string,
  namespaced: boolean,
  custom = false,
): ObjectMetaOptions {
  if (custom) return { namespaced, nameRule: 'subdomain', strictFinalizers: false };
  const key = `${group}/${resource}`;
  const opts: ObjectMetaOptions = {
    namespaced,
    nameRule: nameRuleFor(group, resource),
    strictFinalizers: !GENERIC_META.has(key),
  };
  // The CronJob controller appends an 11-character suffix to job names (63 - 11).
  if (key === 'batch/cronjobs') opts.maxNameLength = 52;
  return opts;
}
