// peerpods/kvm: the kvm-operator. Its API (KVMConfig, Release, DrainerConfig and the label
// contract), the operator on a runtime Manager, its settings and RBAC rules, and the VM simulator
// that stands in for the node pods' VMs where no KVM runs (tests, the example).
export * from './api/index.ts';
export { setupKvmOperator } from './operator.ts';
export type { KvmOperator, KvmOperatorSetup } from './operator.ts';
export { ControllerNames, KVM_LEADER_ELECTION_ID } from './controllers/names.ts';
export { KVM_DEFAULTS, resolveKvmOptions } from './options.ts';
export type { KvmOperatorOptions, NodePodImages, ResolvedKvmOptions } from './options.ts';
export { kvmOperatorRbacRules } from './rbac.ts';
export { kvmSamples } from './samples.ts';
export type { Pod } from './pods.ts';
export type { WorkloadClusters } from './workload/index.ts';
export { SIMULATED_NODE_LABEL, VmSimulator, vmIp } from './sim/vm-simulator.ts';
export type { VmSimulatorOptions } from './sim/vm-simulator.ts';
