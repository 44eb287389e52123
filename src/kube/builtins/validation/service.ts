// Service validation (ValidateService, ValidateServiceUpdate) for a single-stack cluster.
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { externallyAccessible } from '../defaults/core.ts';
import {
  fieldDuplicate,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  GoValue,
} from '../../../apimachinery/validation/field-errors.ts';
import { goStringSliceValue } from '../go.ts';
import { isNil, num, obj, objects, str, stringMap, strings } from '../json.ts';
import { isValidPortName, isValidPortNum, parseIpSloppy, validateIp } from '../names.ts';
import { goQuote } from '../../../apimachinery/strings/goquote.ts';
import {
  isDNS1123Subdomain,
  validateDNS1123Label,
  validateQualifiedName,
} from '../../../apimachinery/validation/names.ts';
import { validateLabels } from '../../../apimachinery/validation/labels.ts';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

function clusterIps(spec: JsonObject): string[] {
  return Array.isArray(spec.clusterIPs) ? strings(spec, 'clusterIPs') : [];
}

function isHeadless(spec: JsonObject): boolean {
  const ips = clusterIps(spec);
  return ips.length === 1 && ips[0] === 'None';
}

function validatePortNumOrName(path: string, port: unknown): FieldError[] {
  if (typeof port === 'string') return isValidPortName(port).map((m) => fieldInvalid(path, port, m));
  const n = typeof port === 'number' ? port : 0;
  return isValidPortNum(n).map((m) => fieldInvalid(path, n, m));
}

/** The `%#v` of the (protocol, port) key kube uses to report duplicate ports. */
function servicePortKey(protocol: string, port: number): GoValue {
  return new GoValue(
    `core.ServicePort{Name:"", Protocol:${goQuote(protocol)}, AppProtocol:(*string)(nil), Port:${port}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`,
  );
}

function validateClusterIpsRelated(spec: JsonObject): FieldError[] {
  if (spec.type === 'ExternalName') return [];
  const errs: FieldError[] = [];
  const ips = clusterIps(spec);
  const ip = str(spec, 'clusterIP') ?? '';
  if (ip) {
    if (ips.length === 0) errs.push(fieldRequired('spec.clusterIPs'));
    else if (ips[0] !== ip)
      errs.push(fieldInvalid('spec.clusterIPs', goStringSliceValue(ips), 'first value must match `clusterIP`'));
  } else if (ips.length > 0) {
    errs.push(
      fieldInvalid('spec.clusterIPs', goStringSliceValue(ips), 'must be empty when `clusterIP` is not specified'),
    );
  }
  const seen = new Set<string>();
  strings(spec, 'ipFamilies').forEach((f, i) => {
    if (f !== 'IPv4' && f !== 'IPv6') errs.push(fieldNotSupported(`spec.ipFamilies[${i}]`, f, ['IPv4', 'IPv6']));
    if (seen.has(f)) errs.push(fieldDuplicate(`spec.ipFamilies[${i}]`, f));
    seen.add(f);
  });
  const policy = spec.ipFamilyPolicy;
  if (typeof policy === 'string' && !['PreferDualStack', 'RequireDualStack', 'SingleStack'].includes(policy)) {
    errs.push(fieldNotSupported('spec.ipFamilyPolicy', policy, ['PreferDualStack', 'RequireDualStack', 'SingleStack']));
  }
  let invalidIps = false;
  ips.forEach((v, i) => {
    if (i === 0 && v === 'None') {
      if (ips.length > 1) {
        invalidIps = true;
        errs.push(fieldInvalid('spec.clusterIPs', goStringSliceValue(ips), "'None' must be the first and only value"));
      }
      return;
    }
    const e = validateIp(v, `spec.clusterIPs[${i}]`);
    if (e.length > 0) invalidIps = true;
    errs.push(...e);
  });
  if (ips.length > 2)
    errs.push(fieldInvalid('spec.clusterIPs', goStringSliceValue(ips), 'may only hold up to 2 values'));
  if (invalidIps) return errs;
  if (ips.length > 1 && parseIpSloppy(ips[0]) === parseIpSloppy(ips[1])) {
    errs.push(
      fieldInvalid('spec.clusterIPs', goStringSliceValue(ips), 'may specify no more than one IP for each IP family'),
    );
  }
  const families = strings(spec, 'ipFamilies');
  if (!isHeadless(spec)) {
    ips.forEach((v, i) => {
      if (i >= families.length) return;
      const v6 = parseIpSloppy(v) === 6;
      if (families[i] === 'IPv4' && v6)
        errs.push(
          fieldInvalid(`spec.clusterIPs[${i}]`, v, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``),
        );
      if (families[i] === 'IPv6' && !v6)
        errs.push(
          fieldInvalid(`spec.clusterIPs[${i}]`, v, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``),
        );
    });
  }
  return errs;
}

/**
 * What IP family initialization refuses on a single-stack cluster (kube reports these while
 * allocating, after validation, as the same 422).
 */
function validateFamiliesConfigured(spec: JsonObject, clusterFamily: 'IPv4' | 'IPv6'): FieldError[] {
  if (spec.type === 'ExternalName') return [];
  const selectorless = Object.keys(obj(spec, 'selector') ?? {}).length === 0;
  if (isHeadless(spec) && selectorless) return [];
  const errs: FieldError[] = [];
  if (spec.ipFamilyPolicy === 'RequireDualStack') {
    errs.push(
      fieldInvalid('spec.ipFamilyPolicy', 'RequireDualStack', 'this cluster is not configured for dual-stack services'),
    );
  }
  strings(spec, 'ipFamilies').forEach((f, i) => {
    if (f !== clusterFamily && (f === 'IPv4' || f === 'IPv6'))
      errs.push(fieldInvalid(`spec.ipFamilies[${i}]`, f, 'not configured on this cluster'));
  });
  return errs;
}

export function validateService(
  o: JsonObject,
  old?: JsonObject,
  clusterFamily: 'IPv4' | 'IPv6' = 'IPv4',
): FieldError[] {
  const spec = obj(o, 'spec') ?? {};
  const errs: FieldError[] = old ? validateServiceUpdate(spec, obj(old, 'spec') ?? {}) : [];
  const ports = objects(spec, 'ports');
  const type = str(spec, 'type') ?? '';
  const headless = isHeadless(spec);
  if (ports.length === 0 && !headless && type !== 'ExternalName') errs.push(fieldRequired('spec.ports'));
  if ((type === 'LoadBalancer' || type === 'NodePort') && headless) {
    errs.push(fieldInvalid('spec.clusterIPs[0]', 'None', `may not be set to 'None' for ${type} services`));
  }
  if (type === 'ExternalName') {
    if (clusterIps(spec).length > 0)
      errs.push(fieldForbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
    if (strings(spec, 'ipFamilies').length > 0)
      errs.push(fieldForbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
    if (!isNil(spec, 'ipFamilyPolicy'))
      errs.push(fieldForbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
    const cname = (str(spec, 'externalName') ?? '').replace(/\.$/, '');
    if (cname) errs.push(...isDNS1123Subdomain(cname).map((m) => fieldInvalid('spec.externalName', cname, m)));
    else errs.push(fieldRequired('spec.externalName'));
  }
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const pp = `spec.ports[${i}]`;
    const name = str(p, 'name') ?? '';
    if (ports.length > 1 && name === '') errs.push(fieldRequired(`${pp}.name`));
    else if (name) {
      errs.push(...validateDNS1123Label(name, `${pp}.name`));
      if (names.has(name)) errs.push(fieldDuplicate(`${pp}.name`, name));
      else names.add(name);
    }
    const port = num(p, 'port') ?? 0;
    errs.push(...isValidPortNum(port).map((m) => fieldInvalid(`${pp}.port`, port, m)));
    const proto = str(p, 'protocol') ?? '';
    if (proto === '') errs.push(fieldRequired(`${pp}.protocol`));
    else if (!PROTOCOLS.includes(proto)) errs.push(fieldNotSupported(`${pp}.protocol`, proto, PROTOCOLS));
    errs.push(...validatePortNumOrName(`${pp}.targetPort`, p.targetPort));
    if (typeof p.appProtocol === 'string') errs.push(...validateQualifiedName(p.appProtocol, `${pp}.appProtocol`));
  });
  errs.push(...validateLabels(stringMap(spec, 'selector'), 'spec.selector'));
  const affinity = str(spec, 'sessionAffinity') ?? '';
  if (affinity === '') errs.push(fieldRequired('spec.sessionAffinity'));
  else if (affinity !== 'ClientIP' && affinity !== 'None')
    errs.push(fieldNotSupported('spec.sessionAffinity', affinity, ['ClientIP', 'None']));
  if (affinity === 'ClientIP') {
    const timeout = obj(obj(spec, 'sessionAffinityConfig'), 'clientIP')?.timeoutSeconds;
    if (typeof timeout === 'number' && (timeout <= 0 || timeout > 86400)) {
      errs.push(
        fieldInvalid(
          'spec.sessionAffinityConfig.clientIP.timeoutSeconds',
          timeout,
          'must be greater than 0 and less than 86400',
        ),
      );
    }
  } else if (affinity === 'None' && !isNil(spec, 'sessionAffinityConfig')) {
    errs.push(fieldForbidden('spec.sessionAffinityConfig', 'must not be set when session affinity is None'));
  }
  errs.push(...validateClusterIpsRelated(spec));
  strings(spec, 'externalIPs').forEach((ip, i) => errs.push(...validateIp(ip, `spec.externalIPs[${i}]`)));
  const types = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
  if (type === '') errs.push(fieldRequired('spec.type'));
  else if (!types.includes(type)) errs.push(fieldNotSupported('spec.type', type, types));
  if (type === 'ClusterIP') {
    ports.forEach((p, i) => {
      if ((num(p, 'nodePort') ?? 0) !== 0)
        errs.push(fieldForbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"));
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    const np = num(p, 'nodePort') ?? 0;
    if (np === 0) return;
    const key = `${str(p, 'protocol') ?? ''}/${np}`;
    if (nodePorts.has(key)) errs.push(fieldDuplicate(`spec.ports[${i}].nodePort`, np));
    nodePorts.add(key);
  });
  const seenPorts = new Set<string>();
  ports.forEach((p, i) => {
    const proto = str(p, 'protocol') ?? '';
    const port = num(p, 'port') ?? 0;
    const key = `${proto}/${port}`;
    if (seenPorts.has(key)) errs.push(fieldDuplicate(`spec.ports[${i}]`, servicePortKey(proto, port)));
    seenPorts.add(key);
  });
  if (!isNil(spec, 'allocateLoadBalancerNodePorts') && type !== 'LoadBalancer') {
    errs.push(fieldForbidden('spec.allocateLoadBalancerNodePorts', "may only be used when `type` is 'LoadBalancer'"));
  }
  // kube reports this one without the `spec.` prefix.
  if (type === 'LoadBalancer' && isNil(spec, 'allocateLoadBalancerNodePorts'))
    errs.push(fieldRequired('allocateLoadBalancerNodePorts'));
  if (!isNil(spec, 'loadBalancerClass') && type !== 'LoadBalancer') {
    errs.push(fieldForbidden('spec.loadBalancerClass', "may only be used when `type` is 'LoadBalancer'"));
  }
  const etp = str(spec, 'externalTrafficPolicy') ?? '';
  if (!externallyAccessible(spec)) {
    if (etp)
      errs.push(fieldInvalid('spec.externalTrafficPolicy', etp, 'may only be set for externally-accessible services'));
  } else if (etp === '') errs.push(fieldRequired('spec.externalTrafficPolicy'));
  else if (etp !== 'Cluster' && etp !== 'Local')
    errs.push(fieldNotSupported('spec.externalTrafficPolicy', etp, ['Cluster', 'Local']));
  const itp = spec.internalTrafficPolicy;
  if ((itp === undefined || itp === null) && ['NodePort', 'LoadBalancer', 'ClusterIP'].includes(type))
    errs.push(fieldRequired('spec.internalTrafficPolicy'));
  if (typeof itp === 'string' && itp !== 'Cluster' && itp !== 'Local')
    errs.push(fieldNotSupported('spec.internalTrafficPolicy', itp, ['Cluster', 'Local']));
  errs.push(...validateFamiliesConfigured(spec, clusterFamily));
  return errs;
}

/** validateUpgradeDowngradeClusterIPs / IPFamilies on a single-stack cluster: no changes. */
function validateServiceUpdate(spec: JsonObject, oldSpec: JsonObject): FieldError[] {
  if (spec.type === 'ExternalName' || oldSpec.type === 'ExternalName') return [];
  const errs: FieldError[] = [];
  const ips = clusterIps(spec);
  const oldIps = clusterIps(oldSpec);
  if (!(isHeadless(spec) && isHeadless(oldSpec))) {
    if (ips.length === oldIps.length) {
      oldIps.forEach((ip, i) => {
        if (ip !== ips[i])
          errs.push(fieldInvalid(`spec.clusterIPs[${i}]`, goStringSliceValue(ips), 'may not change once set'));
      });
    } else if (oldIps.length > ips.length) {
      if (ips.length === 0)
        errs.push(
          fieldInvalid(
            'spec.clusterIPs[0]',
            goStringSliceValue(ips.length ? ips : undefined),
            'primary clusterIP can not be unset',
          ),
        );
      else if (ips[0] !== oldIps[0])
        errs.push(fieldInvalid('spec.clusterIPs[0]', goStringSliceValue(ips), 'may not change once set'));
    } else if (oldIps.length > 0 && ips[0] !== oldIps[0]) {
      errs.push(fieldInvalid('spec.clusterIPs[0]', goStringSliceValue(ips), 'may not change once set'));
    }
  }
  if (isHeadless(spec) === isHeadless(oldSpec) && !isHeadless(spec)) {
    const fams = strings(spec, 'ipFamilies');
    const oldFams = strings(oldSpec, 'ipFamilies');
    if (fams.length === oldFams.length && oldFams.some((f, i) => f !== fams[i])) {
      const value = new GoValue(`[]core.IPFamily{${fams.map(goQuote).join(', ')}}`);
      errs.push(fieldInvalid('spec.ipFamilies[0]', value, 'may not change once set'));
    }
  }
  if (
    oldSpec.type === 'LoadBalancer' &&
    spec.type === 'LoadBalancer' &&
    (oldSpec.loadBalancerClass ?? null) !== (spec.loadBalancerClass ?? null)
  ) {
    errs.push(
      fieldInvalid(
        'spec.loadBalancerClass',
        typeof spec.loadBalancerClass === 'string' ? spec.loadBalancerClass : null,
        'may not change once set',
      ),
    );
  }
  const needsHc = (s: JsonObject): boolean => s.type === 'LoadBalancer' && s.externalTrafficPolicy === 'Local';
  if (needsHc(oldSpec) && needsHc(spec) && spec.healthCheckNodePort !== oldSpec.healthCheckNodePort) {
    errs.push(fieldForbidden('spec.healthCheckNodePort', 'field is immutable'));
  }
  return errs;
}
