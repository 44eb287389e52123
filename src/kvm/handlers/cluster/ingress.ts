// Two Ingresses pass TLS through to the `master` Service, so the workload cluster's API and etcd
// are reachable from outside the management cluster under their own domains:
//   api:  <api domain>  → master:<securePort>
//   etcd: <etcd domain> → master:2379
// Upstream wrote networking.k8s.io/v1beta1, which Kubernetes 1.22 removed; these are v1 (the only
// visible change: v1 requires pathType; ImplementationSpecific is what v1beta1 defaulted to).
// No ingressClassName: the cluster's default ingress class (if any) takes them, as upstream.
import { Ingresses } from '../../../runtime/index.ts';
import type { KubeObject, ResourceHandler } from '../../../runtime/index.ts';
import { Annotations, Labels } from '../../api/labels.ts';
import type { KVMConfig } from '../../api/kvmconfig.ts';
import type { KvmDeps } from '../../deps.ts';
import { apiDomain, apiSecurePort, clusterNamespace, etcdDomain, managedLabels } from '../../key.ts';
import { isSubset, sameJson } from './meta-compare.ts';
import { fixedObjectsHandler } from './fixed-objects.ts';
import { ETCD_PORT } from './service.ts';

export interface IngressRule {
  host?: string;
  http?: {
    paths: {
      path?: string;
      pathType?: string;
      backend: { service?: { name: string; port: { number?: number; name?: string } } };
    }[];
  };
}

export interface Ingress extends KubeObject {
  spec: { ingressClassName?: string; rules?: IngressRule[]; tls?: { hosts?: string[]; secretName?: string }[] };
}

function passthroughIngress(c: KVMConfig, name: string, host: string, port: number): Ingress {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      name,
      namespace: clusterNamespace(c),
      labels: { ...managedLabels(c), [Labels.app]: 'master' },
      annotations: { [Annotations.sslPassthrough]: 'true' },
    },
    spec: {
      tls: [{ hosts: [host] }],
      rules: [
        {
          host,
          http: {
            paths: [
              {
                path: '/',
                pathType: 'ImplementationSpecific',
                backend: { service: { name: 'master', port: { number: port } } },
              },
            ],
          },
        },
      ],
    },
  };
}

export function desiredIngresses(c: KVMConfig): Ingress[] {
  return [
    passthroughIngress(c, 'api', apiDomain(c), apiSecurePort(c)),
    passthroughIngress(c, 'etcd', etcdDomain(c), ETCD_PORT),
  ];
}

/** Modified when the rules or TLS hosts differ, or one of our labels or annotations is missing or changed. */
export function isIngressModified(current: Ingress, desired: Ingress): boolean {
  return (
    !sameJson(current.spec.rules ?? [], desired.spec.rules ?? []) ||
    !sameJson(current.spec.tls ?? [], desired.spec.tls ?? []) ||
    !isSubset(current.metadata.labels, desired.metadata.labels) ||
    !isSubset(current.metadata.annotations, desired.metadata.annotations)
  );
}

/** `current` with our rules, TLS, labels and annotations; everything else (ingressClassName) kept. */
export function mergeIngress(current: Ingress, desired: Ingress): Ingress {
  return {
    ...current,
    metadata: {
      ...current.metadata,
      labels: { ...current.metadata.labels, ...desired.metadata.labels },
      annotations: { ...current.metadata.annotations, ...desired.metadata.annotations },
    },
    spec: { ...current.spec, rules: desired.spec.rules, tls: desired.spec.tls },
  };
}

export function ingressHandler(deps: KvmDeps): ResourceHandler<KVMConfig> {
  return fixedObjectsHandler<Ingress>(deps, {
    name: 'ingress',
    type: Ingresses,
    desired: desiredIngresses,
    isModified: isIngressModified,
    merge: mergeIngress,
  });
}
