// Cluster plumbing kinds: leases, runtime classes, webhook configurations, disruption budgets,
// priority classes, resource quotas and API services.
import { AGE, col, NAME } from '../columns.ts';
import type { JsonObject } from '../../../../apimachinery/meta/index.ts';
import { ageOf, asInt, asList, asObj, asStr, at, intOrString, nameOf } from '../fields.ts';
import type { Printer } from '../types.ts';

export const leasePrinter: Printer = {
  columns: [
    NAME,
    col('Holder', 'string', 'holderIdentity contains the identity of the holder of a current lease.'),
    AGE,
  ],
  cells(lease, now) {
    return [nameOf(lease), asStr(at(lease, 'spec', 'holderIdentity')), ageOf(lease, now)];
  },
};

export const runtimeClassPrinter: Printer = {
  columns: [
    NAME,
    col(
      'Handler',
      'string',
      'handler specifies the underlying runtime and configuration that the CRI implementation will use to handle pods of this class.',
    ),
    AGE,
  ],
  cells(rc, now) {
    return [nameOf(rc), asStr(rc.handler), ageOf(rc, now)];
  },
};

export const webhookConfigurationPrinter: Printer = {
  columns: [
    NAME,
    col('Webhooks', 'integer', 'Webhooks indicates the number of webhooks registered in this configuration'),
    AGE,
  ],
  cells(cfg, now) {
    return [nameOf(cfg), asList(cfg.webhooks).length, ageOf(cfg, now)];
  },
};

export const podDisruptionBudgetPrinter: Printer = {
  columns: [
    NAME,
    col('Min Available', 'string', 'The minimum number of pods that must be available.'),
    col('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    col('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
    AGE,
  ],
  cells(pdb, now) {
    const spec = asObj(pdb.spec);
    return [
      nameOf(pdb),
      spec.minAvailable === undefined ? 'N/A' : intOrString(spec.minAvailable),
      spec.maxUnavailable === undefined ? 'N/A' : intOrString(spec.maxUnavailable),
      asInt(at(pdb, 'status', 'disruptionsAllowed')),
      ageOf(pdb, now),
    ];
  },
};

export const priorityClassPrinter: Printer = {
  columns: [
    NAME,
    col('Value', 'integer', 'value represents the integer value of this priority class.'),
    col(
      'Global-Default',
      'boolean',
      'globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class.',
    ),
    AGE,
    col('PreemptionPolicy', 'string', 'preemptionPolicy is the Policy for preempting pods with lower priority.'),
  ],
  cells(pc, now) {
    return [
      nameOf(pc),
      asInt(pc.value),
      pc.globalDefault === true,
      ageOf(pc, now),
      asStr(pc.preemptionPolicy) || '<unset>',
    ];
  },
};

/** "cpu: 100m/1, pods: 2/10": used/hard per resource, requests and limits apart. */
function quotaColumns(rq: JsonObject): [string, string] {
  const hard = asObj(at(rq, 'status', 'hard'));
  const used = asObj(at(rq, 'status', 'used'));
  const requests: string[] = [];
  const limits: string[] = [];
  for (const name of Object.keys(hard).sort()) {
    const pieces = name.split('.');
    const entry = `${name}: ${asStr(used[name]) || '0'}/${asStr(hard[name]) || '0'}`;
    (pieces.length > 1 && pieces[0] === 'limits' ? limits : requests).push(entry);
  }
  return [requests.join(', '), limits.join(', ')];
}

export const resourceQuotaPrinter: Printer = {
  columns: [
    NAME,
    col('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
    col(
      'Limit',
      'string',
      'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.',
    ),
    AGE,
  ],
  cells(rq, now) {
    const [requests, limits] = quotaColumns(rq);
    return [nameOf(rq), requests, limits, ageOf(rq, now)];
  },
};

/** kube-aggregator's APIService table (pkg/registry/apiservice/etcd/etcd.go ConvertToTable). */
export const apiServicePrinter: Printer = {
  columns: [
    NAME,
    col('Service', 'string', 'The reference to the service that hosts this API endpoint.'),
    col('Available', 'string', 'Whether this service is available.'),
    AGE,
  ],
  cells(svc, now) {
    const service = at(svc, 'spec', 'service');
    const ref = asObj(service);
    const where = service ? `${asStr(ref.namespace)}/${asStr(ref.name)}` : 'Local';
    const available = asList(at(svc, 'status', 'conditions')).find((c) => c.type === 'Available');
    let status = 'Unknown';
    if (available) {
      const s = asStr(available.status);
      const reason = asStr(available.reason);
      status = s === 'True' || !reason ? s : `${s} (${reason})`;
    }
    return [nameOf(svc), where, status, ageOf(svc, now)];
  },
};
