// Sample objects of the kvm-operator's API: a Release and a KVMConfig of one small cluster that
// uses it. They are config/samples/ of the generated manifests, and what the example applies.
import type { KubeObject } from '../runtime/index.ts';
import { Labels } from './api/index.ts';
import { KVM_DEFAULTS } from './options.ts';

export function kvmSamples(): KubeObject[] {
  return [
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
}
