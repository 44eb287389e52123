// The manifests `generate` derives from a project's code: CRDs (the versions of a kind merged into
// one CRD), the manager's ClusterRole, and the webhook configurations.
import { stringify } from 'yaml';
import { mergeCrdVersions } from '../../runtime/index.ts';
import type { KubeObject, PolicyRule } from '../../runtime/index.ts';
import { ScaffoldError } from './errors.ts';
import { fullGroup } from './project.ts';
import type { ProjectFile } from './project.ts';
import { CONVERSION_PATH, names, namespaceOf } from './templates/shared.ts';

interface CrdSpec {
  group: string;
  names: { plural: string; kind: string };
  conversion?: unknown;
  [key: string]: unknown;
}

export const toYaml = (obj: unknown): string => stringify(obj, { lineWidth: 0 });

/**
 * One CRD per name (a kind scaffolded in several versions gives one definition per version; the
 * storage version is the one whose types say `storage: true`). A kind with a conversion webhook
 * gets `spec.conversion` calling the webhook Service at /convert; the manager injects its CA.
 */
export function mergeCrds(p: ProjectFile, crds: KubeObject[]): KubeObject[] {
  let merged: KubeObject[];
  try {
    merged = mergeCrdVersions(crds);
  } catch (err) {
    throw new ScaffoldError((err as Error).message);
  }
  for (const crd of merged as Array<KubeObject & { spec: CrdSpec }>) {
    const converted = p.resources.some(
      (r) => fullGroup(p, r.group) === crd.spec.group && r.kind === crd.spec.names.kind && r.webhooks?.conversion,
    );
    if (converted) crd.spec.conversion = conversionWebhook(p);
  }
  return merged.sort((a, b) => String(a.metadata.name).localeCompare(String(b.metadata.name)));
}

/** kubebuilder's config/crd/patches/webhook_in_<kind>.yaml, applied at generation time. */
function conversionWebhook(p: ProjectFile): object {
  const n = names(p);
  return {
    strategy: 'Webhook',
    webhook: {
      clientConfig: {
        service: { name: n.webhookService, namespace: namespaceOf(p), path: CONVERSION_PATH, port: 443 },
      },
      conversionReviewVersions: ['v1'],
    },
  };
}

export function crdFileName(crd: KubeObject & { spec?: unknown }): string {
  const spec = crd.spec as CrdSpec;
  return `config/crd/bases/${spec.group}_${spec.names.plural}.yaml`;
}

/**
 * The rules as controller-gen writes them: verbs of one group/resource(/names) united, resources
 * with the same verbs folded into one rule, everything sorted — so declaration order never shows.
 */
export function normalizeRules(rules: PolicyRule[]): PolicyRule[] {
  const verbs = new Map<string, Set<string>>();
  for (const r of rules) {
    for (const g of r.apiGroups ?? ['']) {
      for (const res of r.resources ?? []) {
        const key = JSON.stringify([g, res, [...(r.resourceNames ?? [])].sort()]);
        const set = verbs.get(key) ?? new Set<string>();
        for (const v of r.verbs) set.add(v);
        verbs.set(key, set);
      }
    }
  }
  const folded = new Map<string, PolicyRule>();
  for (const [key, set] of verbs) {
    const [g, res, resourceNames] = JSON.parse(key) as [string, string, string[]];
    const v = [...set].sort();
    const fold = JSON.stringify([g, v, resourceNames]);
    const rule = folded.get(fold) ?? {
      apiGroups: [g],
      resources: [],
      ...(resourceNames.length ? { resourceNames } : {}),
      verbs: v,
    };
    rule.resources = [...(rule.resources ?? []), res].sort();
    folded.set(fold, rule);
  }
  return [...folded.values()].sort((a, b) => {
    const ka = `${a.apiGroups?.[0]}\u0000${a.resources?.[0]}`;
    const kb = `${b.apiGroups?.[0]}\u0000${b.resources?.[0]}`;
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
}

export function managerRole(p: ProjectFile, rules: PolicyRule[]): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: names(p).managerRole },
    rules: normalizeRules(rules),
  } as KubeObject;
}

export interface WebhookDeclaration {
  type: 'mutating' | 'validating';
  path: string;
  group: string;
  version: string;
  resource: string;
  operations: string[];
}

/**
 * The webhook configurations, without caBundle: the manager issues its own CA and writes the
 * bundle into them at start (as this project's PeerPodConfig controller does for its webhook).
 */
export function webhookConfigurations(p: ProjectFile, hooks: WebhookDeclaration[]): KubeObject[] {
  const n = names(p);
  const out: KubeObject[] = [];
  for (const type of ['mutating', 'validating'] as const) {
    const mine = hooks.filter((h) => h.type === type).sort((a, b) => a.path.localeCompare(b.path));
    if (!mine.length) continue;
    out.push({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: type === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
      metadata: {
        name: type === 'mutating' ? n.mutatingConfiguration : n.validatingConfiguration,
        labels: { 'app.kubernetes.io/name': p.projectName },
      },
      webhooks: mine.map((h) => ({
        name: `${h.type[0]}${h.resource.replace(/s$/, '')}-${h.version}.${h.group}`,
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        clientConfig: { service: { name: n.webhookService, namespace: namespaceOf(p), path: h.path, port: 443 } },
        rules: [{ apiGroups: [h.group], apiVersions: [h.version], operations: h.operations, resources: [h.resource] }],
      })),
    } as KubeObject);
  }
  return out;
}
