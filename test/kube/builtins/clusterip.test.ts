import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ClusterIpAllocationError,
  ClusterIpAllocator,
  applyDefaults,
  assignClusterIp,
  reconcileClusterIp,
} from '../../../src/kube/builtins/index.ts';
import { StatusError } from '../../../src/apimachinery/errors/index.ts';
import type { JsonObject } from '../../../src/apimachinery/meta/index.ts';

function failure(reason: string, message: string) {
  return (e: unknown) => e instanceof ClusterIpAllocationError && e.reason === reason && e.message === message;
}

describe('ClusterIpAllocator', () => {
  it('keeps .1 for the kubernetes Service and hands out the upper band first', () => {
    const a = new ClusterIpAllocator();
    assert.equal(a.cidr, '10.96.0.0/12');
    assert.equal(a.kubernetesServiceIp, '10.96.0.1');
    assert.ok(a.has('10.96.0.1'));
    assert.equal(a.allocate(), '10.96.1.1');
    assert.equal(a.allocate(), '10.96.1.2');
    assert.equal(a.allocate(''), '10.96.1.3');
  });

  it('allocates requested addresses, including ones in the static band', () => {
    const a = new ClusterIpAllocator();
    assert.equal(a.allocate('10.96.0.10'), '10.96.0.10');
    assert.equal(a.allocate('10.111.255.254'), '10.111.255.254');
  });

  const refusals: [string, string, string][] = [
    ['10.96.0.1', 'AlreadyAllocated', 'provided IP is already allocated'],
    [
      '10.96.0.0',
      'NotInRange',
      'the provided IP (10.96.0.0) is not in the valid range. The range of valid IPs is 10.96.0.0/12',
    ],
    [
      '10.111.255.255',
      'NotInRange',
      'the provided IP (10.111.255.255) is not in the valid range. The range of valid IPs is 10.96.0.0/12',
    ],
    [
      '192.168.1.1',
      'NotInRange',
      'the provided IP (192.168.1.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12',
    ],
    [
      'fd00::1',
      'NotInRange',
      'the provided IP (fd00::1) is not in the valid range. The range of valid IPs is 10.96.0.0/12',
    ],
    ['not-an-ip', 'InvalidIP', 'failed to parse IP not-an-ip'],
  ];
  for (const [ip, reason, message] of refusals) {
    it(`refuses ${ip}: ${reason}`, () => {
      const a = new ClusterIpAllocator();
      assert.throws(() => a.allocate(ip), failure(reason, message));
    });
  }

  it('refuses an address twice and takes it back after release', () => {
    const a = new ClusterIpAllocator();
    a.allocate('10.96.5.5');
    assert.throws(() => a.allocate('10.96.5.5'), failure('AlreadyAllocated', 'provided IP is already allocated'));
    assert.equal(a.release('10.96.5.5'), true);
    assert.equal(a.release('10.96.5.5'), false);
    assert.equal(a.allocate('10.96.5.5'), '10.96.5.5');
  });

  it('returns None for headless Services without allocating', () => {
    const a = new ClusterIpAllocator('10.0.0.0/28');
    const before = a.free();
    assert.equal(a.allocate('None'), 'None');
    assert.equal(a.free(), before);
  });

  it('fills small ranges, falls back to the lower band and reports full', () => {
    const a = new ClusterIpAllocator('10.0.0.0/29');
    // /29: 8 addresses, minus network, broadcast and the kubernetes Service.
    assert.equal(a.free(), 5);
    const got = [a.allocate(), a.allocate(), a.allocate(), a.allocate(), a.allocate()];
    assert.deepStrictEqual(got, ['10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6']);
    assert.throws(() => a.allocate(), failure('Full', 'range is full'));
    a.release('10.0.0.4');
    assert.equal(a.allocate(), '10.0.0.4');
  });

  it('does not hand a released address straight back out', () => {
    const a = new ClusterIpAllocator();
    const first = a.allocate();
    a.release(first);
    assert.notEqual(a.allocate(), first);
  });

  it('works on IPv6 ranges and can skip the kubernetes reservation', () => {
    const a = new ClusterIpAllocator('fd00:10:96::/112', { reserveKubernetesServiceIp: false });
    assert.equal(a.kubernetesServiceIp, 'fd00:10:96::1');
    assert.equal(a.allocate('fd00:10:96::1'), 'fd00:10:96::1');
    assert.equal(a.allocate(), 'fd00:10:96::101');
    assert.throws(() => new ClusterIpAllocator('10.0.0.0/33'), /invalid service CIDR/);
  });

  it('restores stored allocations', () => {
    const a = new ClusterIpAllocator();
    assert.equal(a.restore('10.96.1.1'), true);
    assert.equal(a.allocate(), '10.96.1.2');
    assert.equal(a.restore('1.2.3.4'), false);
  });
});

function service(spec: JsonObject): JsonObject {
  const svc: JsonObject = { metadata: { name: 'web', namespace: 'default' }, spec };
  applyDefaults('', 'Service', svc, 'create');
  return svc;
}

describe('assignClusterIp', () => {
  it('fills clusterIP and clusterIPs', () => {
    const a = new ClusterIpAllocator();
    const svc = service({ ports: [{ port: 80 }] });
    assert.equal(assignClusterIp(svc, a), '10.96.1.1');
    assert.equal((svc.spec as JsonObject).clusterIP, '10.96.1.1');
    assert.deepStrictEqual((svc.spec as JsonObject).clusterIPs, ['10.96.1.1']);
  });

  it('skips headless and ExternalName Services', () => {
    const a = new ClusterIpAllocator();
    assert.equal(assignClusterIp(service({ clusterIP: 'None' }), a), undefined);
    assert.equal(assignClusterIp(service({ type: 'ExternalName', externalName: 'x.example' }), a), undefined);
  });

  it('turns refusals into kube-apiserver errors', () => {
    const a = new ClusterIpAllocator();
    assert.throws(
      () => assignClusterIp(service({ clusterIP: '10.96.0.1', ports: [{ port: 80 }] }), a),
      (e: unknown) =>
        e instanceof StatusError &&
        e.code === 422 &&
        e.message ===
          'Service "web" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.1"}: failed to allocate IP 10.96.0.1: provided IP is already allocated',
    );
    const tiny = new ClusterIpAllocator('10.0.0.0/30');
    tiny.allocate();
    assert.throws(
      () => assignClusterIp(service({ ports: [{ port: 80 }] }), tiny),
      (e: unknown) =>
        e instanceof StatusError &&
        e.code === 500 &&
        e.message === 'Internal error occurred: failed to allocate a serviceIP: range is full',
    );
  });

  it('allocates and releases across type changes', () => {
    const a = new ClusterIpAllocator();
    const ext = service({ type: 'ExternalName', externalName: 'x.example' });
    const back = service({ ports: [{ port: 80 }] });
    assert.deepStrictEqual(reconcileClusterIp(back, ext, a), { allocated: '10.96.1.1' });
    const toExt = service({ type: 'ExternalName', externalName: 'x.example' });
    assert.deepStrictEqual(reconcileClusterIp(toExt, back, a), { release: '10.96.1.1' });
  });
});
