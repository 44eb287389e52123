// Controller names: metric labels, log fields, and the suffix of each controller's finalizer
// (operatorkit.giantswarm.io/<name>), identical to upstream's so objects move between the two.
export const ControllerNames = {
  cluster: 'kvm-operator',
  deleter: 'kvm-operator-deleter',
  drainer: 'kvm-operator-drainer',
  unhealthyNodeTerminator: 'kvm-operator-unhealthy-nodes-terminator',
  /** Ours: upstream's node-operator role, the DrainerConfig executor. No finalizer. */
  nodeDrainer: 'kvm-operator-node-drainer',
} as const;

/** The leader-election Lease of `peerpods run kvm-operator`. */
export const KVM_LEADER_ELECTION_ID = 'kvm-operator.giantswarm.io';
