// The kvm-operator's API: KVMConfig (the workload cluster), Release (its versions), DrainerConfig
// (the drain handshake), and the label/annotation contract shared with upstream.
import type { KubeObject } from '../../runtime/index.ts';
import { drainerConfigCrd } from './drainerconfig.ts';
import { kvmConfigCrd } from './kvmconfig.ts';
import { releaseCrd } from './release.ts';

export * from './labels.ts';
export * from './kvmconfig.ts';
export * from './release.ts';
export * from './drainerconfig.ts';

/** Every CRD the kvm-operator needs. */
export function kvmCrds(): KubeObject[] {
  return [kvmConfigCrd(), releaseCrd(), drainerConfigCrd()];
}
