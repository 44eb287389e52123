// Validation of discovery.k8s.io/v1 EndpointSlices (pkg/apis/discovery/validation/validation.go:
// ValidateEndpointSlice, ValidateEndpointSliceUpdate). One deliberate difference: addresses in the
// loopback range are accepted (kube's ValidateNonSpecialIP refuses them), as core Endpoints are
// here, because pods on this machine get loopback IPs.
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import {
  fieldDuplicate,
  fieldImmutable,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooMany,
} from '../../../apimachinery/validation/field-errors.ts';
import {
  isDNS1123Subdomain,
  validateDNS1123Label,
  validateQualifiedName,
} from '../../../apimachinery/validation/names.ts';
import { arr, objects, str } from '../json.ts';
import { parseIpSloppy, validateFullyQualifiedName } from '../names.ts';

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 20000;

export function validateEndpointSlice(o: JsonObject, old?: JsonObject): FieldError[] {
  const addressType = str(o, 'addressType') ?? '';
  const errs: FieldError[] = [];
  if (!addressType) errs.push(fieldRequired('addressType'));
  else if (!ADDRESS_TYPES.includes(addressType))
    errs.push(fieldNotSupported('addressType', addressType, ADDRESS_TYPES));
  errs.push(...validateEndpoints(o, addressType), ...validatePorts(o));
  if (old && addressType !== (str(old, 'addressType') ?? '')) errs.push(fieldImmutable('addressType', addressType));
  return errs;
}

function validateAddress(addressType: string, address: string, path: string): FieldError[] {
  switch (addressType) {
    case 'IPv4':
      return parseIpSloppy(address) === 4 ? [] : [fieldInvalid(path, address, 'must be a valid IPv4 address')];
    case 'IPv6':
      return parseIpSloppy(address) === 6 ? [] : [fieldInvalid(path, address, 'must be a valid IPv6 address')];
    case 'FQDN':
      return validateFullyQualifiedName(address, path);
    default:
      return [];
  }
}

function validateEndpoints(o: JsonObject, addressType: string): FieldError[] {
  const endpoints = objects(o, 'endpoints');
  if (endpoints.length > MAX_ENDPOINTS) return [fieldTooMany('endpoints', endpoints.length, MAX_ENDPOINTS)];
  const errs: FieldError[] = [];
  endpoints.forEach((ep, i) => {
    const path = `endpoints[${i}]`;
    const addresses = (arr(ep, 'addresses') ?? []).map((a) => (typeof a === 'string' ? a : ''));
    if (addresses.length === 0) errs.push(fieldRequired(`${path}.addresses`, 'must contain at least 1 address'));
    else if (addresses.length > MAX_ADDRESSES)
      errs.push(fieldTooMany(`${path}.addresses`, addresses.length, MAX_ADDRESSES));
    addresses.forEach((a, j) => errs.push(...validateAddress(addressType, a, `${path}.addresses[${j}]`)));
    const nodeName = str(ep, 'nodeName');
    if (nodeName !== undefined)
      for (const m of isDNS1123Subdomain(nodeName)) errs.push(fieldInvalid(`${path}.nodeName`, nodeName, m));
    const hostname = str(ep, 'hostname');
    if (hostname !== undefined) errs.push(...validateDNS1123Label(hostname, `${path}.hostname`));
  });
  return errs;
}

function validatePorts(o: JsonObject): FieldError[] {
  const ports = objects(o, 'ports');
  if (ports.length > MAX_PORTS) return [fieldTooMany('ports', ports.length, MAX_PORTS)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const path = `ports[${i}]`;
    const name = str(p, 'name') ?? '';
    if (name) errs.push(...validateDNS1123Label(name, `${path}.name`));
    if (names.has(name)) errs.push(fieldDuplicate(`${path}.name`, name));
    names.add(name);
    const protocol = str(p, 'protocol');
    if (protocol === undefined) errs.push(fieldRequired(`${path}.protocol`));
    else if (!PROTOCOLS.includes(protocol)) errs.push(fieldNotSupported(`${path}.protocol`, protocol, PROTOCOLS));
    const appProtocol = str(p, 'appProtocol');
    if (appProtocol !== undefined) errs.push(...validateQualifiedName(appProtocol, `${path}.appProtocol`));
  });
  return errs;
}
