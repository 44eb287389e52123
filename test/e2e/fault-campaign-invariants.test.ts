// The fault campaign's invariants on hand-made censuses: each kind of violation is seen, so the
// campaign's "0 leaked, 0 duplicates, 0 stuck" can fail.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findViolations } from '../helpers/fault-campaign/invariants.ts';
import type { Census } from '../helpers/fault-campaign/invariants.ts';

const healthy = (): Census => ({
  pods: [{ name: 'a', uid: 'uid-a', phase: 'Running', terminating: false }],
  peerPods: [{ name: 'a-resource-1', ownerUid: 'uid-a', instanceID: 'vm-1', finalizer: true }],
  vms: [{ id: 'vm-1', name: 'podvm-a-uid-a', pid: 10 }],
});
const none = new Set<string>();
const running = new Set(['a']);

describe('fault campaign invariants', () => {
  it('a settled cluster: every VM named by one PeerPod of a live pod, the pod Running', () => {
    assert.deepEqual(findViolations(healthy(), running, none), {
      leaked: [],
      duplicates: [],
      stuckFinalizers: [],
      stuckPods: [],
    });
  });

  it('a VM no PeerPod names, or only the PeerPod of a pod being deleted, is leaked (unless already reported)', () => {
    const c = healthy();
    c.vms.push({ id: 'vm-2', name: 'podvm-b-uid-b', pid: 11 });
    assert.deepEqual(findViolations(c, running, none).leaked, ['VM vm-2 (podvm-b-uid-b, pid 11)']);
    assert.deepEqual(findViolations(c, running, new Set(['vm-2'])).leaked, []);
    c.pods[0].terminating = true;
    assert.equal(findViolations(c, new Set(), none).leaked.length, 2);
  });

  it('two VMs of one name, one VM named by two PeerPods, and a pod with two VMs are duplicates', () => {
    const c = healthy();
    c.vms.push({ id: 'vm-2', name: 'podvm-a-uid-a', pid: 11 });
    c.peerPods.push({ name: 'a-resource-2', ownerUid: 'uid-a', instanceID: 'vm-2', finalizer: true });
    assert.deepEqual(findViolations(c, running, none).duplicates, [
      '2 VMs named podvm-a-uid-a: vm-1, vm-2',
      'pod a has VMs vm-1, vm-2',
    ]);
    const twice = healthy();
    twice.peerPods.push({ name: 'a-resource-2', ownerUid: 'uid-a', instanceID: 'vm-1', finalizer: true });
    assert.deepEqual(findViolations(twice, running, none).duplicates, [
      'VM vm-1 named by PeerPods a-resource-1, a-resource-2',
    ]);
  });

  it('a finalizer on the PeerPod of a pod that is gone is stuck; one released is not', () => {
    const c = healthy();
    c.peerPods.push({ name: 'gone-resource-1', ownerUid: 'uid-gone', instanceID: '', finalizer: true });
    c.peerPods.push({ name: 'gone-resource-2', ownerUid: 'uid-gone', instanceID: '', finalizer: false });
    assert.deepEqual(findViolations(c, running, none).stuckFinalizers, ['PeerPod gone-resource-1 (pod uid-gone gone)']);
  });

  it('a pod Terminating, missing, not Running, or Running without a live VM is stuck', () => {
    const c = healthy();
    c.pods.push({ name: 'b', uid: 'uid-b', phase: 'Pending', terminating: false });
    c.pods.push({ name: 'd', uid: 'uid-d', phase: 'Running', terminating: true });
    c.pods.push({ name: 'e', uid: 'uid-e', phase: 'Running', terminating: false });
    c.peerPods.push({ name: 'e-resource-1', ownerUid: 'uid-e', instanceID: 'vm-dead', finalizer: true });
    assert.deepEqual(findViolations(c, new Set(['a', 'b', 'c', 'e']), none).stuckPods, [
      'pod d Terminating',
      'pod b Pending',
      'pod c missing',
      'pod e Running without a VM',
    ]);
  });
});
