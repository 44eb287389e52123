// The kvm-operator's share of config/: its CRDs, service account and cluster role, its Deployment,
// and samples (a Release and a KVMConfig). Merged into the layers by manifests-config.ts.
import type { KubeObject } from '../runtime/index.ts';
import { Labels, kvmCrds } from '../kvm/api/index.ts';
import { KVM_DEFAULTS } from '../kvm/options.ts';
import { kvmOperatorRbacRules } from '../kvm/rbac.ts';
import { operatorDeployment } from './manifests-deployment.ts';

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
  const samples: KubeObject[] = [
    {
      apiVersion: 'release.giantswarm.io/v1alpha1',
      kind: 'Release',
      metadata: { name: 'v14.1.0' },
      spec: {
        state: 'active',
        components: [
          { name: 'kubernetes', version: '1.19.8' },
          { name: 'calico', version: '3.15.3' },
          { name: 'etcd', version: '3.4.14' },
          { name: 'containerlinux', version: '2605.12.0' },
        ],
      },
    },
    {
      apiVersion: 'provider.giantswarm.io/v1alpha1',
      kind: 'KVMConfig',
      metadata: {
        name: 'abc12',
        namespace: KVM_DEFAULTS.kvmConfigNamespace,
        labels: { [Labels.operatorVersion]: KVM_DEFAULTS.version, [Labels.releaseVersion]: '14.1.0' },
      },
      spec: {
        cluster: {
          id: 'abc12',
          customer: { id: 'acme' },
          etcd: { domain: 'etcd.abc12.k8s.example.com', port: 2379, prefix: 'giantswarm.io' },
          kubernetes: { api: { domain: 'api.abc12.k8s.example.com', securePort: 443 } },
          masters: [{ id: 'm1' }],
          workers: [{ id: 'w1' }, { id: 'w2' }],
        },
        kvm: {
          masters: [{ cpus: 2, memory: '4G', disk: 20 }],
          workers: [
            { cpus: 2, memory: '4G', disk: 20, dockerVolumeSizeGB: 30 },
            { cpus: 2, memory: '4G', disk: 20, dockerVolumeSizeGB: 30 },
          ],
          network: { flannel: { vni: 26 } },
          portMappings: [],
          k8sKVM: { storageType: 'hostPath' },
        },
      },
    },
  ];
  return { crd: kvmCrds(), rbac, manager, samples };
}
