// The kvm-operator's share of config/: its CRDs, its ServiceAccount and roles, its Deployment,
// and samples (a Release and a KVMConfig). Merged into the layers by layers.ts.
import type { KubeObject } from '../../runtime/index.ts';
import { KVM_DEFAULTS, kvmCrds, kvmOperatorRbacRules, kvmSamples } from '../../kvm/index.ts';
import { operatorDeployment } from './deployment.ts';
import { componentRbac } from './rbac.ts';

const NAME = 'kvm-operator';

export interface KvmLayers {
  crd: KubeObject[];
  rbac: KubeObject[];
  manager: KubeObject[];
  samples: KubeObject[];
}

export function kvmLayers(ns: string, image: string, labels: Record<string, string>): KvmLayers {
  const rules = kvmOperatorRbacRules(KVM_DEFAULTS);
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
  return { crd: kvmCrds(), rbac: componentRbac({ name: NAME, rules }, ns, labels), manager, samples: kvmSamples() };
}
