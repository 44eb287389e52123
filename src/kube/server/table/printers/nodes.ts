// Nodes: STATUS from the Ready condition (plus SchedulingDisabled when cordoned) and ROLES from
// node-role.kubernetes.io/<role> and kubernetes.io/role labels.
import type { JsonObject } from '../../../../apimachinery/meta/index.ts';
import { AGE, col, NAME, wide } from '../columns.ts';
import { ageOf, asList, asObj, asStr, at, meta, nameOf } from '../fields.ts';
import type { Printer } from '../types.ts';

const ROLE_PREFIX = 'node-role.kubernetes.io/';

export function nodeRoles(node: JsonObject): string[] {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(asObj(meta(node).labels))) {
    if (k.startsWith(ROLE_PREFIX) && k.length > ROLE_PREFIX.length) roles.add(k.slice(ROLE_PREFIX.length));
    else if (k === 'kubernetes.io/role' && asStr(v) !== '') roles.add(asStr(v));
  }
  return [...roles].sort();
}

export function nodeStatus(node: JsonObject): string {
  const status: string[] = [];
  const ready = asList(at(node, 'status', 'conditions')).find((c) => c.type === 'Ready');
  if (ready) status.push(ready.status === 'True' ? 'Ready' : 'NotReady');
  else status.push('Unknown');
  if (at(node, 'spec', 'unschedulable') === true) status.push('SchedulingDisabled');
  return status.join(',');
}

function address(node: JsonObject, type: string): string {
  return asStr(asList(at(node, 'status', 'addresses')).find((a) => a.type === type)?.address) || '<none>';
}

export const nodePrinter: Printer = {
  columns: [
    NAME,
    col('Status', 'string', 'The status of the node'),
    col('Roles', 'string', 'The roles of the node'),
    AGE,
    col('Version', 'string', 'Kubelet Version reported by the node.'),
    wide('Internal-IP', 'string', 'List of addresses reachable to the node.'),
    wide('External-IP', 'string', 'List of addresses reachable to the node.'),
    wide(
      'OS-Image',
      'string',
      'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).',
    ),
    wide(
      'Kernel-Version',
      'string',
      "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
    ),
    wide('Container-Runtime', 'string', 'ContainerRuntime Version reported by the node through runtime remote API.'),
  ],
  cells(node, now) {
    const info = asObj(at(node, 'status', 'nodeInfo'));
    return [
      nameOf(node),
      nodeStatus(node),
      nodeRoles(node).join(',') || '<none>',
      ageOf(node, now),
      asStr(info.kubeletVersion),
      address(node, 'InternalIP'),
      address(node, 'ExternalIP'),
      asStr(info.osImage) || '<unknown>',
      asStr(info.kernelVersion) || '<unknown>',
      asStr(info.containerRuntimeVersion) || '<unknown>',
    ];
  },
};
