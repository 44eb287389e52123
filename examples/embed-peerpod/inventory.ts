// The host operator's own controller: keeps a ConfigMap `node-inventory` listing the nodes and the
// pod VMs they advertise. It shares the manager's Node informer with the embedded PeerPodConfig
// controller, and sees the capacity that controller writes.
import { ConfigMaps, ControllerBuilder, Nodes, createOrPatch } from '../../src/runtime/index.ts';
import type { Controller, KubeObject, Manager } from '../../src/runtime/index.ts';

export const INVENTORY_NAME = 'node-inventory';
/** The resource the embedded PeerPodConfig controller advertises (its default). */
const VM_RESOURCE = 'kata.peerpods.io/vm';

interface NodeObject extends KubeObject {
  status?: { allocatable?: Record<string, string> };
}

export function setupNodeInventoryController(manager: Manager, namespace: string): Controller {
  const nodes = manager.informerFor<NodeObject>(Nodes);
  const key = { namespace, name: INVENTORY_NAME };
  return new ControllerBuilder(manager, 'node-inventory')
    .watches<NodeObject>(Nodes, () => [key])
    .complete(async () => {
      const all = nodes.list().sort((a, b) => String(a.metadata.name).localeCompare(String(b.metadata.name)));
      const vms = all.reduce((sum, n) => sum + Number(n.status?.allocatable?.[VM_RESOURCE] ?? 0), 0);
      const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...key }, data: {} as Record<string, string> };
      await createOrPatch(manager.client, ConfigMaps, cm, (draft) => {
        draft.data = { nodes: all.map((n) => n.metadata.name).join(','), vms: String(vms) };
      });
    });
}
