// The kvm-operator's share of config/: its CRDs, service account and cluster role, its Deployment,
// and samples (a Release and a KVMConfig). Merged into the layers by layers.ts.
import type { KubeObject } from '../../runtime/index.ts';
import { KVM_DEFAULTS, kvmCrds, kvmOperatorRbacRules, kvmSamples } from '../../kvm/index.ts';
import { operatorDeployment } from './deployment.ts';

const NAME = 'kvm-operator';
const RBAC_API = 'rbac.authorization.k8s.io/v1';

export interface KvmLayers {
  crd: KubeObject[];
  rbac: KubeObject[];
  manager: KubeObject[];
  samples: KubeObject[];
}

export function kvmLayers(ns: string, image: string, labels: Record<string, string>): KvmLayers {
  const meta = (name: string, namespace?: string) => ({
    name,
    ...(namespace ? { namespace } : {}),
    labels: { ...labels },
  });
  const rbac: KubeObject[] = [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(NAME, ns) },
    {
      apiVersion: RBAC_API,
      kind: 'ClusterRole',
      metadata: meta(`${NAME}-role`),
      rules: kvmOperatorRbacRules({ general: KVM_DEFAULTS.clusterRoleGeneral, psp: KVM_DEFAULTS.clusterRolePsp }),
    },
    {
      apiVersion: RBAC_API,
      kind: 'ClusterRoleBinding',
      metadata: meta(`${NAME}-rolebinding`),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${NAME}-role` },
      subjects: [{ kind: 'ServiceAccount', name: NAME, namespace: ns }],
    },
  ];
  const manager: KubeObject[] = [
    operatorDeployment({
      name: NAME,
      namespace: ns,
      image,
      serviceAccountName: NAME,
      labels,
      selector: { 'control-plane': NAME },
      operator: 'kvm-operator',
      resources: { requests: { cpu: '20m', memory: '96Mi' }, limits: { memory: '512Mi' } },
    }),
  ];
  return { crd: kvmCrds(), rbac, manager, samples: kvmSamples() };
}
