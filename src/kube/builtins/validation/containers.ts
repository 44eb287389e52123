// Container validation shared by Pods and pod templates (validateContainers,
// validateInitContainers): names, images, ports, env, mounts, pull policy, resources, probes and
// lifecycle handlers, in kube's order.
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import {
  fieldDuplicate,
  fieldForbidden,
  fieldInvalid,
  fieldNotFound,
  fieldNotSupported,
  fieldRequired,
  GoValue,
} from '../../../apimachinery/validation/field-errors.ts';
import { isEmptyString, isNil, num, obj, objects, sortedKeys, str } from '../json.ts';
import { isConfigMapKey, isEnvVarName, isValidPortName, isValidPortNum } from '../names.ts';
import { isWholeQuantity } from '../quantity.ts';
import {
  isDNS1123Subdomain,
  isQualifiedName,
  validateDNS1123Label,
  validateQualifiedName,
} from '../../../apimachinery/validation/names.ts';
import { tryQuantityFromJSON, type Quantity } from '../../../apimachinery/quantity/quantity.ts';

function validatePortNumOrName(path: string, port: unknown): FieldError[] {
  if (typeof port === 'string') return isValidPortName(port).map((m) => fieldInvalid(path, port, m));
  const n = typeof port === 'number' ? port : 0;
  return isValidPortNum(n).map((m) => fieldInvalid(path, n, m));
}

function validateContainerPorts(c: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objects(c, 'ports').forEach((p, i) => {
    const pp = `${path}[${i}]`;
    const name = str(p, 'name') ?? '';
    if (name) {
      const msgs = isValidPortName(name);
      if (msgs.length > 0) errs.push(...msgs.map((m) => fieldInvalid(`${pp}.name`, name, m)));
      else if (names.has(name)) errs.push(fieldDuplicate(`${pp}.name`, name));
      else names.add(name);
    }
    const cp = num(p, 'containerPort') ?? 0;
    if (cp === 0) errs.push(fieldRequired(`${pp}.containerPort`));
    else errs.push(...isValidPortNum(cp).map((m) => fieldInvalid(`${pp}.containerPort`, cp, m)));
    const hp = num(p, 'hostPort') ?? 0;
    if (hp !== 0) errs.push(...isValidPortNum(hp).map((m) => fieldInvalid(`${pp}.hostPort`, hp, m)));
    const proto = str(p, 'protocol') ?? '';
    if (proto === '') errs.push(fieldRequired(`${pp}.protocol`));
    else if (!['SCTP', 'TCP', 'UDP'].includes(proto))
      errs.push(fieldNotSupported(`${pp}.protocol`, proto, ['SCTP', 'TCP', 'UDP']));
  });
  return errs;
}

const ENV_FIELD_PATHS = [
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
];
const CONVERTIBLE_FIELD_PATHS = new Set([
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.serviceAccountName',
  'spec.schedulerName',
  'status.phase',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
  'spec.host',
]);
const RESOURCE_FIELD_PATHS = [
  'limits.cpu',
  'limits.ephemeral-storage',
  'limits.memory',
  'requests.cpu',
  'requests.ephemeral-storage',
  'requests.memory',
];

function validateFieldRef(ref: JsonObject, path: string): FieldError[] {
  if (isEmptyString(ref, 'apiVersion')) return [fieldRequired(`${path}.apiVersion`)];
  const fieldPath = str(ref, 'fieldPath') ?? '';
  if (fieldPath === '') return [fieldRequired(`${path}.fieldPath`)];
  const apiVersion = str(ref, 'apiVersion') ?? '';
  const sub = /^(metadata\.(?:labels|annotations))\['(.*)'\]$/.exec(fieldPath) ?? /^([^[]+)\[(.*)\]$/.exec(fieldPath);
  if (apiVersion !== 'v1')
    return [
      fieldInvalid(
        `${path}.fieldPath`,
        fieldPath,
        `error converting fieldPath: unsupported pod version: ${apiVersion}`,
      ),
    ];
  if (sub) {
    if (sub[1] !== 'metadata.labels' && sub[1] !== 'metadata.annotations') {
      return [
        fieldInvalid(
          `${path}.fieldPath`,
          fieldPath,
          `error converting fieldPath: field label does not support subscript: ${fieldPath}`,
        ),
      ];
    }
    const key = sub[1] === 'metadata.annotations' ? sub[2].toLowerCase() : sub[2];
    return validateQualifiedName(key, path);
  }
  if (!CONVERTIBLE_FIELD_PATHS.has(fieldPath)) {
    return [
      fieldInvalid(
        `${path}.fieldPath`,
        fieldPath,
        `error converting fieldPath: field label not supported: ${fieldPath}`,
      ),
    ];
  }
  const internal = fieldPath === 'spec.host' ? 'spec.nodeName' : fieldPath;
  return ENV_FIELD_PATHS.includes(internal) ? [] : [fieldNotSupported(`${path}.fieldPath`, internal, ENV_FIELD_PATHS)];
}

function validateKeySelector(sel: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(sel, 'name') ?? '';
  errs.push(...isDNS1123Subdomain(name).map((m) => fieldInvalid(`${path}.name`, name, m)));
  const key = str(sel, 'key') ?? '';
  if (key === '') errs.push(fieldRequired(`${path}.key`));
  else errs.push(...isConfigMapKey(key).map((m) => fieldInvalid(`${path}.key`, key, m)));
  return errs;
}

function validateEnv(c: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  objects(c, 'env').forEach((e, i) => {
    const p = `${path}[${i}]`;
    const name = str(e, 'name') ?? '';
    if (name === '') errs.push(fieldRequired(`${p}.name`));
    else errs.push(...isEnvVarName(name).map((m) => fieldInvalid(`${p}.name`, name, m)));
    const from = obj(e, 'valueFrom');
    if (!from) return;
    const vp = `${p}.valueFrom`;
    let sources = 0;
    const fieldRef = obj(from, 'fieldRef');
    if (fieldRef) {
      sources++;
      errs.push(...validateFieldRef(fieldRef, `${vp}.fieldRef`));
    }
    const resourceRef = obj(from, 'resourceFieldRef');
    if (resourceRef) {
      sources++;
      const resource = str(resourceRef, 'resource') ?? '';
      if (resource === '') errs.push(fieldRequired(`${vp}.resourceFieldRef.resource`));
      else if (!RESOURCE_FIELD_PATHS.includes(resource) && !/^(requests|limits)\.hugepages-/.test(resource)) {
        errs.push(fieldNotSupported(`${vp}.resourceFieldRef.resource`, resource, RESOURCE_FIELD_PATHS));
      }
    }
    for (const key of ['configMapKeyRef', 'secretKeyRef']) {
      const ref = obj(from, key);
      if (!ref) continue;
      sources++;
      errs.push(...validateKeySelector(ref, `${vp}.${key}`));
    }
    if (sources === 0)
      errs.push(
        fieldInvalid(
          vp,
          '',
          'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
        ),
      );
    else if (!isEmptyString(e, 'value'))
      errs.push(fieldInvalid(vp, '', 'may not be specified when `value` is not empty'));
    else if (sources > 1) errs.push(fieldInvalid(vp, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

function validateVolumeMounts(c: JsonObject, path: string, volumes: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const mountPaths = new Set<string>();
  objects(c, 'volumeMounts').forEach((m, i) => {
    const p = `${path}[${i}]`;
    const name = str(m, 'name') ?? '';
    if (name === '') errs.push(fieldRequired(`${p}.name`));
    if (!volumes.has(name)) errs.push(fieldNotFound(`${p}.name`, name));
    const mountPath = str(m, 'mountPath') ?? '';
    if (mountPath === '') errs.push(fieldRequired(`${p}.mountPath`));
    if (mountPaths.has(mountPath)) errs.push(fieldInvalid(`${p}.mountPath`, mountPath, 'must be unique'));
    mountPaths.add(mountPath);
  });
  return errs;
}

const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);
const STANDARD_RESOURCES = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'storage',
  'requests.storage',
  'services.nodeports',
  'services.loadbalancers',
]);
const isHugePages = (name: string): boolean => name.startsWith('hugepages-');
const isNativeResource = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');
const isExtendedResource = (name: string): boolean =>
  !isNativeResource(name) &&
  !name.startsWith('requests.') &&
  validateQualifiedName(`requests.${name}`, '').length === 0;
const overcommitAllowed = (name: string): boolean => isNativeResource(name) && !isHugePages(name);

/** A resource name printed through core.ResourceName's String(): unquoted. */
const resourceNameValue = (name: string): GoValue => new GoValue(name);

function validateContainerResourceName(name: string, path: string): FieldError[] {
  const errs = isQualifiedName(name).map((m) => fieldInvalid(path, resourceNameValue(name), m));
  if (errs.length === 0 && !name.includes('/') && !STANDARD_RESOURCES.has(name) && !isHugePages(name)) {
    errs.push(fieldInvalid(path, resourceNameValue(name), 'must be a standard resource type or fully qualified'));
  }
  if (!name.includes('/')) {
    if (!STANDARD_CONTAINER_RESOURCES.has(name) && !isHugePages(name)) {
      errs.push(fieldInvalid(path, resourceNameValue(name), 'must be a standard resource for containers'));
    }
  } else if (!isNativeResource(name) && !isExtendedResource(name)) {
    errs.push(fieldInvalid(path, resourceNameValue(name), "doesn't follow extended resource name standard"));
  }
  return errs;
}

/** ValidateResourceQuantityValue; values are already canonical once defaults have run. */
function validateQuantityValue(name: string, raw: unknown, q: Quantity | undefined, path: string): FieldError[] {
  if (!q) return [];
  const errs: FieldError[] = [];
  const text = typeof raw === 'string' ? raw : String(raw);
  if (q.sign() < 0) errs.push(fieldInvalid(path, text, 'must be greater than or equal to 0'));
  const whole = isWholeQuantity(q);
  // A Quantity prints through its String() method, so unquoted.
  if (isExtendedResource(name) && !whole) errs.push(fieldInvalid(path, new GoValue(text), 'must be an integer'));
  return errs;
}

function validateResources(c: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const resources = obj(c, 'resources');
  const limits = obj(resources, 'limits') ?? {};
  const requests = obj(resources, 'requests') ?? {};
  const limPath = `${path}.limits`;
  const reqPath = `${path}.requests`;
  let limCpuMem = false;
  let reqCpuMem = false;
  let hugePages = false;
  for (const name of sortedKeys(limits)) {
    const p = `${limPath}[${name}]`;
    errs.push(...validateContainerResourceName(name, p));
    errs.push(...validateQuantityValue(name, limits[name], tryQuantityFromJSON(limits[name]), p));
    if (isHugePages(name)) hugePages = true;
    if (name === 'cpu' || name === 'memory') limCpuMem = true;
  }
  for (const name of sortedKeys(requests)) {
    const p = `${reqPath}[${name}]`;
    errs.push(...validateContainerResourceName(name, p));
    const req = tryQuantityFromJSON(requests[name]);
    errs.push(...validateQuantityValue(name, requests[name], req, p));
    const lim = name in limits ? tryQuantityFromJSON(limits[name]) : undefined;
    if (req && lim) {
      const reqText = String(requests[name]);
      const limText = String(limits[name]);
      if (req.cmp(lim) !== 0 && !overcommitAllowed(name)) {
        errs.push(fieldInvalid(reqPath, reqText, `must be equal to ${name} limit of ${limText}`));
      } else if (req.cmp(lim) > 0) {
        errs.push(fieldInvalid(reqPath, reqText, `must be less than or equal to ${name} limit of ${limText}`));
      }
    } else if (!(name in limits) && !overcommitAllowed(name)) {
      errs.push(fieldRequired(limPath, 'Limit must be set for non overcommitable resources'));
    }
    if (isHugePages(name)) hugePages = true;
    if (name === 'cpu' || name === 'memory') reqCpuMem = true;
  }
  if (!limCpuMem && !reqCpuMem && hugePages) errs.push(fieldForbidden(path, 'HugePages require cpu or memory'));
  return errs;
}

const HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc', 'sleep'];

function validateHandler(h: JsonObject, path: string, allowed: string[]): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const key of HANDLERS) {
    if (!allowed.includes(key) || isNil(h, key)) continue;
    const p = `${path}.${key}`;
    if (count > 0) {
      errs.push(fieldForbidden(p, 'may not specify more than 1 handler type'));
      continue;
    }
    count++;
    const src = obj(h, key) ?? {};
    if (key === 'exec' && !(Array.isArray(src.command) && src.command.length > 0))
      errs.push(fieldRequired(`${p}.command`));
    if (key === 'httpGet') {
      if (isEmptyString(src, 'path')) errs.push(fieldRequired(`${p}.path`));
      errs.push(...validatePortNumOrName(`${p}.port`, src.port));
      const scheme = str(src, 'scheme') ?? '';
      if (scheme !== 'HTTP' && scheme !== 'HTTPS')
        errs.push(fieldNotSupported(`${p}.scheme`, scheme, ['HTTP', 'HTTPS']));
    }
    if (key === 'tcpSocket') errs.push(...validatePortNumOrName(`${p}.port`, src.port));
    if (key === 'grpc') errs.push(...validatePortNumOrName(`${p}.port`, typeof src.port === 'number' ? src.port : 0));
  }
  if (count === 0) errs.push(fieldRequired(path, 'must specify a handler type'));
  return errs;
}

function validateProbe(
  c: JsonObject,
  key: 'livenessProbe' | 'readinessProbe' | 'startupProbe',
  path: string,
): FieldError[] {
  const probe = obj(c, key);
  if (!probe) return [];
  const p = `${path}.${key}`;
  const errs = validateHandler(probe, p, ['exec', 'httpGet', 'tcpSocket', 'grpc']);
  for (const f of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) {
    const v = num(probe, f) ?? 0;
    if (v < 0) errs.push(fieldInvalid(`${p}.${f}`, v, 'must be greater than or equal to 0'));
  }
  const tgps = probe.terminationGracePeriodSeconds;
  if (typeof tgps === 'number' && tgps <= 0)
    errs.push(fieldInvalid(`${p}.terminationGracePeriodSeconds`, tgps, 'must be greater than 0'));
  if (key !== 'readinessProbe' && (num(probe, 'successThreshold') ?? 0) !== 1) {
    errs.push(fieldInvalid(`${p}.successThreshold`, num(probe, 'successThreshold') ?? 0, 'must be 1'));
  }
  if (key === 'readinessProbe' && typeof tgps === 'number') {
    errs.push(fieldInvalid(`${p}.terminationGracePeriodSeconds`, tgps, 'must not be set for readinessProbes'));
  }
  return errs;
}

function validateLifecycle(c: JsonObject, path: string): FieldError[] {
  const lifecycle = obj(c, 'lifecycle');
  if (!lifecycle) return [];
  const errs: FieldError[] = [];
  for (const key of ['postStart', 'preStop']) {
    const h = obj(lifecycle, key);
    if (h) errs.push(...validateHandler(h, `${path}.lifecycle.${key}`, ['exec', 'httpGet', 'tcpSocket', 'sleep']));
  }
  return errs;
}

function validateContainerCommon(c: JsonObject, path: string, volumes: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(c, 'name') ?? '';
  if (name === '') errs.push(fieldRequired(`${path}.name`));
  else errs.push(...validateDNS1123Label(name, `${path}.name`));
  if (isEmptyString(c, 'image')) errs.push(fieldRequired(`${path}.image`));
  const tmp = str(c, 'terminationMessagePolicy') ?? '';
  if (tmp === '') errs.push(fieldRequired(`${path}.terminationMessagePolicy`));
  else if (tmp !== 'File' && tmp !== 'FallbackToLogsOnError') {
    errs.push(fieldNotSupported(`${path}.terminationMessagePolicy`, tmp, ['File', 'FallbackToLogsOnError']));
  }
  errs.push(...validateContainerPorts(c, `${path}.ports`));
  errs.push(...validateEnv(c, `${path}.env`));
  errs.push(...validateVolumeMounts(c, `${path}.volumeMounts`, volumes));
  const pull = str(c, 'imagePullPolicy') ?? '';
  if (pull === '') errs.push(fieldRequired(`${path}.imagePullPolicy`));
  else if (!['Always', 'IfNotPresent', 'Never'].includes(pull)) {
    errs.push(fieldNotSupported(`${path}.imagePullPolicy`, pull, ['Always', 'IfNotPresent', 'Never']));
  }
  errs.push(...validateResources(c, `${path}.resources`));
  return errs;
}

function hostPortConflicts(containers: JsonObject[], path: string, offset = 0): FieldError[] {
  const seen = new Set<string>();
  const errs: FieldError[] = [];
  containers.forEach((c, ci) => {
    objects(c, 'ports').forEach((p, pi) => {
      const hp = num(p, 'hostPort') ?? 0;
      if (hp === 0) return;
      const key = `${str(p, 'protocol') ?? ''}/${str(p, 'hostIP') ?? ''}/${hp}`;
      if (seen.has(key)) errs.push(fieldDuplicate(`${path}[${ci + offset}].ports[${pi}].hostPort`, key));
      else seen.add(key);
    });
  });
  return errs;
}

export function validateContainers(spec: JsonObject, path: string, volumes: Set<string>): FieldError[] {
  const containers = objects(spec, 'containers');
  if (containers.length === 0) return [fieldRequired(path)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const p = `${path}[${i}]`;
    errs.push(...validateContainerCommon(c, p, volumes));
    const name = str(c, 'name') ?? '';
    if (names.has(name)) errs.push(fieldDuplicate(`${p}.name`, name));
    else names.add(name);
    errs.push(...validateLifecycle(c, p));
    errs.push(...validateProbe(c, 'livenessProbe', p));
    errs.push(...validateProbe(c, 'readinessProbe', p));
    errs.push(...validateProbe(c, 'startupProbe', p));
    if (!isNil(c, 'restartPolicy'))
      errs.push(fieldForbidden(`${p}.restartPolicy`, 'may not be set for non-init containers'));
  });
  errs.push(...hostPortConflicts(containers, path));
  return errs;
}

export function validateInitContainers(spec: JsonObject, path: string, volumes: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set(objects(spec, 'containers').map((c) => str(c, 'name') ?? ''));
  objects(spec, 'initContainers').forEach((c, i) => {
    const p = `${path}[${i}]`;
    errs.push(...validateContainerCommon(c, p, volumes));
    const restart = c.restartPolicy;
    if (restart !== undefined && restart !== null && restart !== 'Always') {
      errs.push(fieldNotSupported(`${p}.restartPolicy`, typeof restart === 'string' ? restart : '', ['Always']));
    }
    const name = str(c, 'name') ?? '';
    if (names.has(name)) errs.push(fieldDuplicate(`${p}.name`, name));
    else if (name) names.add(name);
    errs.push(...hostPortConflicts([c], path, i));
    if (restart === 'Always') {
      errs.push(...validateLifecycle(c, p));
      errs.push(...validateProbe(c, 'livenessProbe', p));
      errs.push(...validateProbe(c, 'readinessProbe', p));
      errs.push(...validateProbe(c, 'startupProbe', p));
    } else {
      for (const key of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe']) {
        if (!isNil(c, key))
          errs.push(fieldForbidden(`${p}.${key}`, 'may not be set for init containers without restartPolicy=Always'));
      }
    }
  });
  return errs;
}
