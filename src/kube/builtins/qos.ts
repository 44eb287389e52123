// The Pod QoS class kube-apiserver stamps into status on create (qos.ComputePodQOS): summed cpu
// and memory requests and limits over regular and init containers.
import type { JsonObject } from '../../apimachinery/meta/index.ts';
import { obj, objects } from './json.ts';
import { tryQuantityFromJSON, type Quantity } from '../../apimachinery/quantity/quantity.ts';

export type QosClass = 'BestEffort' | 'Burstable' | 'Guaranteed';

const QOS_RESOURCES = ['cpu', 'memory'];

function accumulate(into: Map<string, Quantity>, list: JsonObject | undefined, found?: Set<string>): void {
  for (const name of QOS_RESOURCES) {
    const q = tryQuantityFromJSON(list?.[name]);
    if (!q || q.sign() <= 0) continue;
    found?.add(name);
    const prev = into.get(name);
    into.set(name, prev ? prev.add(q) : q);
  }
}

export function computeQosClass(spec: JsonObject | undefined): QosClass {
  const requests = new Map<string, Quantity>();
  const limits = new Map<string, Quantity>();
  let guaranteed = true;
  for (const c of [...objects(spec, 'containers'), ...objects(spec, 'initContainers')]) {
    const resources = obj(c, 'resources');
    accumulate(requests, obj(resources, 'requests'));
    const found = new Set<string>();
    accumulate(limits, obj(resources, 'limits'), found);
    if (!QOS_RESOURCES.every((r) => found.has(r))) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, req] of requests) {
      const lim = limits.get(name);
      if (!lim || lim.cmp(req) !== 0) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}
