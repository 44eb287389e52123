// Endpoints subsets: RepackSubsets (pkg/api/v1/endpoints/util.go) and truncateEndpoints
// (pkg/controller/endpoint/endpoints_controller.go) over the pairs the controller collects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { repackSubsets, truncateSubsets, type AddressPort } from '../../../../src/kube/controllers/network/subsets.ts';

const addr = (ip: string, uid = ip) => ({ ip, targetRef: { kind: 'Pod', namespace: 'n', name: uid, uid } });
const port = (name: string, n: number) => ({ name, port: n, protocol: 'TCP' });

test('addresses offering the same ports share a subset; readiness per address', () => {
  const pairs: AddressPort[] = [
    { address: addr('10.0.0.2'), ready: true, port: port('http', 80) },
    { address: addr('10.0.0.2'), ready: true, port: port('metrics', 90) },
    { address: addr('10.0.0.1'), ready: false, port: port('http', 80) },
    { address: addr('10.0.0.1'), ready: false, port: port('metrics', 90) },
    { address: addr('10.0.0.3'), ready: true, port: port('metrics', 90) },
  ];
  assert.deepEqual(repackSubsets(pairs), [
    {
      addresses: [addr('10.0.0.2')],
      notReadyAddresses: [addr('10.0.0.1')],
      ports: [port('http', 80)],
    },
    {
      addresses: [addr('10.0.0.2'), addr('10.0.0.3')],
      notReadyAddresses: [addr('10.0.0.1')],
      ports: [port('metrics', 90)],
    },
  ]);
});

test('a headless Service without ports lists bare addresses', () => {
  assert.deepEqual(repackSubsets([{ address: addr('10.0.0.1'), ready: true }]), [{ addresses: [addr('10.0.0.1')] }]);
  assert.deepEqual(repackSubsets([]), []);
});

test('over 1000 addresses, not-ready ones are cut first, in proportion per subset', () => {
  const many = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => addr(`${prefix}.${i}`));
  const subsets = [
    { addresses: many('10.0.1', 900), notReadyAddresses: many('10.0.2', 100), ports: [port('a', 1)] },
    { addresses: [], notReadyAddresses: many('10.0.3', 100), ports: [port('b', 2)] },
  ];
  assert.equal(truncateSubsets(subsets), true);
  assert.equal(subsets[0].addresses.length, 900);
  // 100 places for 200 not-ready addresses: half each.
  assert.equal(subsets[0].notReadyAddresses.length, 50);
  assert.equal(subsets[1].notReadyAddresses.length, 50);
  assert.equal(truncateSubsets([{ addresses: many('10.0.4', 1000) }]), false);
});
