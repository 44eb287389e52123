// Services, Endpoints, Ingresses and NetworkPolicies.
import { isIPv6 } from 'node:net';
import type { JsonObject, JsonValue } from '../../../../apimachinery/meta/index.ts';
import { AGE, col, NAME, wide } from '../columns.ts';
import { ageOf, asInt, asList, asObj, asStr, at, formatLabels, formatSelector, nameOf } from '../fields.ts';
import type { Printer } from '../types.ts';

/**
 * Load-balancer ingress points, de-duplicated and sorted. kube clips them to 16 bytes only for
 * narrow output, and the server always builds its Tables wide, so they are never clipped here.
 */
function loadBalancerIngress(status: JsonValue | undefined): string {
  const points = new Set<string>();
  for (const i of asList(asObj(status).ingress)) {
    const v = asStr(i.ip) || asStr(i.hostname);
    if (v) points.add(v);
  }
  return [...points].sort().join(',');
}

function externalIP(svc: JsonObject): string {
  const raw = at(svc, 'spec', 'externalIPs');
  const external = Array.isArray(raw) ? raw.map((x) => asStr(x)) : [];
  switch (asStr(at(svc, 'spec', 'type'))) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerIngress(at(svc, 'status', 'loadBalancer'));
      if (external.length) return [...(lb ? lb.split(',') : []), ...external].join(',');
      return lb || '<pending>';
    }
    case 'ExternalName':
      return asStr(at(svc, 'spec', 'externalName'));
    default:
      return '<unknown>';
  }
}

export function servicePorts(svc: JsonObject): string {
  return asList(at(svc, 'spec', 'ports'))
    .map((p) => {
      const proto = asStr(p.protocol) || 'TCP';
      return asInt(p.nodePort) > 0 ? `${asInt(p.port)}:${asInt(p.nodePort)}/${proto}` : `${asInt(p.port)}/${proto}`;
    })
    .join(',');
}

export const servicePrinter: Printer = {
  columns: [
    NAME,
    col('Type', 'string', 'type determines how the Service is exposed. Defaults to ClusterIP.'),
    col('Cluster-IP', 'string', 'clusterIP is the IP address of the service and is usually assigned randomly.'),
    col(
      'External-IP',
      'string',
      'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.',
    ),
    col('Port(s)', 'string', 'The list of ports that are exposed by this service.'),
    AGE,
    wide('Selector', 'string', 'Route service traffic to pods with label keys and values matching this selector.'),
  ],
  cells(svc, now) {
    // As in kube's v1 conversion, clusterIP wins over clusterIPs[0].
    const clusterIPs = at(svc, 'spec', 'clusterIPs');
    const clusterIP =
      asStr(at(svc, 'spec', 'clusterIP')) || (Array.isArray(clusterIPs) ? asStr(clusterIPs[0]) : '') || '<none>';
    return [
      nameOf(svc),
      asStr(at(svc, 'spec', 'type')),
      clusterIP,
      externalIP(svc),
      servicePorts(svc) || '<none>',
      ageOf(svc, now),
      formatLabels(at(svc, 'spec', 'selector')),
    ];
  },
};

function hostPort(ip: string, port: number): string {
  return isIPv6(ip) ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/** formatEndpoints: up to three addresses, then "+ N more...". */
export function formatEndpoints(ep: JsonObject): string {
  const subsets = asList(ep.subsets);
  if (subsets.length === 0) return '<none>';
  const max = 3;
  const list: string[] = [];
  let more = false;
  let count = 0;
  for (const ss of subsets) {
    const addresses = asList(ss.addresses);
    const ports = asList(ss.ports);
    if (ports.length === 0) {
      count += addresses.length;
      for (const a of addresses) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(asStr(a.ip));
      }
      continue;
    }
    for (const p of ports) {
      count += addresses.length;
      for (const a of addresses) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(hostPort(asStr(a.ip), asInt(p.port)));
      }
    }
  }
  const joined = list.join(',');
  return more ? `${joined} + ${count - max} more...` : joined;
}

export const endpointsPrinter: Printer = {
  columns: [NAME, col('Endpoints', 'string', 'The set of all endpoints is the union of all subsets.'), AGE],
  cells(ep, now) {
    return [nameOf(ep), formatEndpoints(ep), ageOf(ep, now)];
  },
};

function ingressHosts(ing: JsonObject): string {
  const rules = asList(at(ing, 'spec', 'rules'));
  const max = 3;
  const list: string[] = [];
  let more = false;
  for (const r of rules) {
    if (list.length === max) more = true;
    if (!more && asStr(r.host)) list.push(asStr(r.host));
  }
  if (list.length === 0) return '*';
  return more ? `${list.join(',')} + ${rules.length - max} more...` : list.join(',');
}

export const ingressPrinter: Printer = {
  columns: [
    NAME,
    col('Class', 'string', 'The name of the IngressClass resource that should be used for additional configuration'),
    col('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
    col('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
    col('Ports', 'string', 'Ports of TLS configurations that open'),
    AGE,
  ],
  cells(ing, now) {
    const className = at(ing, 'spec', 'ingressClassName');
    return [
      nameOf(ing),
      typeof className === 'string' ? className : '<none>',
      ingressHosts(ing),
      loadBalancerIngress(at(ing, 'status', 'loadBalancer')),
      asList(at(ing, 'spec', 'tls')).length ? '80, 443' : '80',
      ageOf(ing, now),
    ];
  },
};

export const networkPolicyPrinter: Printer = {
  columns: [NAME, col('Pod-Selector', 'string', 'Selects the pods to which this NetworkPolicy object applies.'), AGE],
  cells(np, now) {
    // The internal podSelector is a struct, never nil: a missing one is the empty selector.
    return [nameOf(np), formatSelector(at(np, 'spec', 'podSelector') ?? {}), ageOf(np, now)];
  },
};
