// PodSpec validation (Pods and every pod template) and the Pod update rules, following
// ValidatePodSpec / ValidatePodUpdate in the same order so that multi-error messages list
// causes in kube's order. Covered: volumes, containers (names, images, ports, env, mounts, pull
// policy, resources, probes), init containers, restart and DNS policy, tolerations, scheduling
// gates and the scalar fields. Not covered: security contexts, affinity, topology spread,
// sysctls, Windows options, resource claims.
import type { FieldError } from '../errors.ts';
import type { JsonObject } from '../types.ts';
import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotFound, fieldNotSupported, fieldRequired, GoValue } from './fields.ts';
import { isEmptyString, isNil, isObject, num, obj, objects, semanticEqual, sortedKeys, str, stringMap } from './json.ts';
import { goStringMapValue } from './go.ts';
import {
  inclusiveRangeError,
  isConfigMapKey,
  isDns1123Subdomain,
  isEnvVarName,
  isQualifiedName,
  isValidLabelValue,
  isValidPortName,
  isValidPortNum,
  validateDns1123Label,
  validateLabels,
  validateQualifiedName,
} from './names.ts';
import { compareQuantity, parseQuantity, type Quantity } from './quantity.ts';

const MAX_INT32 = 2147483647;
const FILE_MODE_MSG = 'must be a number between 0 and 0777 (octal), both inclusive';

export interface PodSpecContext {
  /** The spec belongs to a Pod, not a template: enables the Pod-only checks. */
  isPod: boolean;
}

// ---- volumes ----

const VOLUME_SOURCES = [
  'hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi',
  'glusterfs', 'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc',
  'azureFile', 'configMap', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected',
  'portworxVolume', 'scaleIO', 'storageos', 'csi', 'ephemeral', 'image',
];
const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

function validateMode(path: string, mode: unknown): FieldError[] {
  if (typeof mode !== 'number') return [];
  return mode < 0 || mode > 0o777 ? [fieldInvalid(path, mode, FILE_MODE_MSG)] : [];
}

function validateVolumeSource(v: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const key of VOLUME_SOURCES) {
    if (isNil(v, key)) continue;
    if (count > 0) {
      errs.push(fieldForbidden(`${path}.${key}`, 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    const src = obj(v, key) ?? {};
    const p = `${path}.${key}`;
    switch (key) {
      case 'hostPath': {
        if (isEmptyString(src, 'path')) errs.push(fieldRequired(`${p}.path`));
        const t = src.type;
        if (typeof t === 'string' && !HOST_PATH_TYPES.includes(t)) errs.push(fieldNotSupported(`${p}.type`, t, HOST_PATH_TYPES));
        break;
      }
      case 'secret':
        if (isEmptyString(src, 'secretName')) errs.push(fieldRequired(`${p}.secretName`));
        errs.push(...validateMode(`${p}.defaultMode`, src.defaultMode));
        break;
      case 'configMap':
        if (isEmptyString(src, 'name')) errs.push(fieldRequired(`${p}.name`));
        errs.push(...validateMode(`${p}.defaultMode`, src.defaultMode));
        break;
      case 'persistentVolumeClaim':
        if (isEmptyString(src, 'claimName')) errs.push(fieldRequired(`${p}.claimName`));
        break;
      case 'emptyDir': {
        const limit = parseQuantity(src.sizeLimit);
        if (limit && limit.m < 0n) errs.push(fieldForbidden(`${p}.sizeLimit`, 'SizeLimit field must be a valid resource quantity'));
        break;
      }
      case 'downwardAPI':
      case 'projected':
        errs.push(...validateMode(`${p}.defaultMode`, src.defaultMode));
        break;
    }
  }
  if (count === 0) errs.push(fieldRequired(path, 'must specify a volume type'));
  return errs;
}

function validateVolumes(spec: JsonObject, path: string): { names: Set<string>; errs: FieldError[] } {
  const names = new Set<string>();
  const errs: FieldError[] = [];
  objects(spec, 'volumes').forEach((v, i) => {
    const p = `${path}[${i}]`;
    const el = validateVolumeSource(v, p);
    const name = str(v, 'name') ?? '';
    if (name === '') el.push(fieldRequired(`${p}.name`));
    else el.push(...validateDns1123Label(`${p}.name`, name));
    if (names.has(name)) el.push(fieldDuplicate(`${p}.name`, name));
    if (el.length === 0) names.add(name);
    else errs.push(...el);
  });
  return { names, errs };
}

// ---- containers ----

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
    else if (!['SCTP', 'TCP', 'UDP'].includes(proto)) errs.push(fieldNotSupported(`${pp}.protocol`, proto, ['SCTP', 'TCP', 'UDP']));
  });
  return errs;
}

const ENV_FIELD_PATHS = [
  'metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName',
  'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs',
];
const CONVERTIBLE_FIELD_PATHS = new Set([
  'metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName',
  'spec.restartPolicy', 'spec.serviceAccountName', 'spec.schedulerName', 'status.phase', 'status.hostIP',
  'status.hostIPs', 'status.podIP', 'status.podIPs', 'spec.host',
]);
const RESOURCE_FIELD_PATHS = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu', 'requests.ephemeral-storage', 'requests.memory'];

function validateFieldRef(ref: JsonObject, path: string): FieldError[] {
  if (isEmptyString(ref, 'apiVersion')) return [fieldRequired(`${path}.apiVersion`)];
  const fieldPath = str(ref, 'fieldPath') ?? '';
  if (fieldPath === '') return [fieldRequired(`${path}.fieldPath`)];
  const apiVersion = str(ref, 'apiVersion') ?? '';
  const sub = /^(metadata\.(?:labels|annotations))\['(.*)'\]$/.exec(fieldPath) ?? /^([^[]+)\[(.*)\]$/.exec(fieldPath);
  if (apiVersion !== 'v1') return [fieldInvalid(`${path}.fieldPath`, fieldPath, `error converting fieldPath: unsupported pod version: ${apiVersion}`)];
  if (sub) {
    if (sub[1] !== 'metadata.labels' && sub[1] !== 'metadata.annotations') {
      return [fieldInvalid(`${path}.fieldPath`, fieldPath, `error converting fieldPath: field label does not support subscript: ${fieldPath}`)];
    }
    const key = sub[1] === 'metadata.annotations' ? sub[2].toLowerCase() : sub[2];
    return validateQualifiedName(path, key);
  }
  if (!CONVERTIBLE_FIELD_PATHS.has(fieldPath)) {
    return [fieldInvalid(`${path}.fieldPath`, fieldPath, `error converting fieldPath: field label not supported: ${fieldPath}`)];
  }
  const internal = fieldPath === 'spec.host' ? 'spec.nodeName' : fieldPath;
  return ENV_FIELD_PATHS.includes(internal) ? [] : [fieldNotSupported(`${path}.fieldPath`, internal, ENV_FIELD_PATHS)];
}

function validateKeySelector(sel: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(sel, 'name') ?? '';
  errs.push(...isDns1123Subdomain(name).map((m) => fieldInvalid(`${path}.name`, name, m)));
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
    if (sources === 0) errs.push(fieldInvalid(vp, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
    else if (!isEmptyString(e, 'value')) errs.push(fieldInvalid(vp, '', 'may not be specified when `value` is not empty'));
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
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu',
  'limits.memory', 'limits.ephemeral-storage', 'pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets',
  'configmaps', 'persistentvolumeclaims', 'storage', 'requests.storage', 'services.nodeports', 'services.loadbalancers',
]);
const isHugePages = (name: string): boolean => name.startsWith('hugepages-');
const isNativeResource = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');
const isExtendedResource = (name: string): boolean =>
  !isNativeResource(name) && !name.startsWith('requests.') && validateQualifiedName('', `requests.${name}`).length === 0;
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
  if (q.m < 0n) errs.push(fieldInvalid(path, text, 'must be greater than or equal to 0'));
  const whole = q.e >= 0 || q.m % 10n ** BigInt(-q.e) === 0n;
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
    errs.push(...validateQuantityValue(name, limits[name], parseQuantity(limits[name]), p));
    if (isHugePages(name)) hugePages = true;
    if (name === 'cpu' || name === 'memory') limCpuMem = true;
  }
  for (const name of sortedKeys(requests)) {
    const p = `${reqPath}[${name}]`;
    errs.push(...validateContainerResourceName(name, p));
    const req = parseQuantity(requests[name]);
    errs.push(...validateQuantityValue(name, requests[name], req, p));
    const lim = name in limits ? parseQuantity(limits[name]) : undefined;
    if (req && lim) {
      const reqText = String(requests[name]);
      const limText = String(limits[name]);
      if (compareQuantity(req, lim) !== 0 && !overcommitAllowed(name)) {
        errs.push(fieldInvalid(reqPath, reqText, `must be equal to ${name} limit of ${limText}`));
      } else if (compareQuantity(req, lim) > 0) {
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
    if (key === 'exec' && !(Array.isArray(src.command) && src.command.length > 0)) errs.push(fieldRequired(`${p}.command`));
    if (key === 'httpGet') {
      if (isEmptyString(src, 'path')) errs.push(fieldRequired(`${p}.path`));
      errs.push(...validatePortNumOrName(`${p}.port`, src.port));
      const scheme = str(src, 'scheme') ?? '';
      if (scheme !== 'HTTP' && scheme !== 'HTTPS') errs.push(fieldNotSupported(`${p}.scheme`, scheme, ['HTTP', 'HTTPS']));
    }
    if (key === 'tcpSocket') errs.push(...validatePortNumOrName(`${p}.port`, src.port));
    if (key === 'grpc') errs.push(...validatePortNumOrName(`${p}.port`, typeof src.port === 'number' ? src.port : 0));
  }
  if (count === 0) errs.push(fieldRequired(path, 'must specify a handler type'));
  return errs;
}

function validateProbe(c: JsonObject, key: 'livenessProbe' | 'readinessProbe' | 'startupProbe', path: string): FieldError[] {
  const probe = obj(c, key);
  if (!probe) return [];
  const p = `${path}.${key}`;
  const errs = validateHandler(probe, p, ['exec', 'httpGet', 'tcpSocket', 'grpc']);
  for (const f of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) {
    const v = num(probe, f) ?? 0;
    if (v < 0) errs.push(fieldInvalid(`${p}.${f}`, v, 'must be greater than or equal to 0'));
  }
  const tgps = probe.terminationGracePeriodSeconds;
  if (typeof tgps === 'number' && tgps <= 0) errs.push(fieldInvalid(`${p}.terminationGracePeriodSeconds`, tgps, 'must be greater than 0'));
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
  else errs.push(...validateDns1123Label(`${path}.name`, name));
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

function validateContainers(spec: JsonObject, path: string, volumes: Set<string>): FieldError[] {
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
    if (!isNil(c, 'restartPolicy')) errs.push(fieldForbidden(`${p}.restartPolicy`, 'may not be set for non-init containers'));
  });
  errs.push(...hostPortConflicts(containers, path));
  return errs;
}

function validateInitContainers(spec: JsonObject, path: string, volumes: Set<string>): FieldError[] {
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
        if (!isNil(c, key)) errs.push(fieldForbidden(`${p}.${key}`, 'may not be set for init containers without restartPolicy=Always'));
      }
    }
  });
  return errs;
}

// ---- pod-level fields ----

export function validateTolerations(tolerations: JsonObject[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  tolerations.forEach((t, i) => {
    const p = `${path}[${i}]`;
    const key = str(t, 'key') ?? '';
    const op = str(t, 'operator') ?? '';
    const value = str(t, 'value') ?? '';
    const effect = str(t, 'effect') ?? '';
    if (key) errs.push(...validateQualifiedName(`${p}.key`, key));
    if (!key && op !== 'Exists') {
      errs.push(fieldInvalid(`${p}.operator`, op, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (!isNil(t, 'tolerationSeconds') && effect !== 'NoExecute') {
      errs.push(fieldInvalid(`${p}.effect`, effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (op === 'Equal' || op === '') {
      const msgs = isValidLabelValue(value);
      if (msgs.length > 0) errs.push(fieldInvalid(`${p}.operator`, value, msgs.join(';')));
    } else if (op === 'Exists') {
      if (value) errs.push(fieldInvalid(`${p}.operator`, value, "value must be empty when `operator` is 'Exists'"));
    } else {
      errs.push(fieldNotSupported(`${p}.operator`, op, ['Equal', 'Exists']));
    }
    if (effect && !['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(effect)) {
      errs.push(fieldNotSupported(`${p}.effect`, effect, ['NoSchedule', 'PreferNoSchedule', 'NoExecute']));
    }
  });
  return errs;
}

function validateNames(spec: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ['serviceAccountName', 'nodeName']) {
    const v = str(spec, f) ?? '';
    if (v) errs.push(...isDns1123Subdomain(v).map((m) => fieldInvalid(`${path}.${f}`, v, m)));
  }
  const ads = spec.activeDeadlineSeconds;
  if (typeof ads === 'number' && (ads < 1 || ads > MAX_INT32)) {
    errs.push(fieldInvalid(`${path}.activeDeadlineSeconds`, ads, inclusiveRangeError(1, MAX_INT32)));
  }
  for (const f of ['hostname', 'subdomain']) {
    const v = str(spec, f) ?? '';
    if (v) errs.push(...validateDns1123Label(`${path}.${f}`, v));
  }
  errs.push(...validateTolerations(objects(spec, 'tolerations'), `${path}.tolerations`));
  for (const f of ['priorityClassName', 'runtimeClassName']) {
    const v = str(spec, f) ?? '';
    if (v || (f === 'runtimeClassName' && typeof spec[f] === 'string')) {
      errs.push(...isDns1123Subdomain(v).map((m) => fieldInvalid(`${path}.${f}`, v, m)));
    }
  }
  if (!isNil(spec, 'preemptionPolicy')) {
    const v = str(spec, 'preemptionPolicy') ?? '';
    if (v === '') errs.push(fieldRequired(`${path}.preemptionPolicy`));
    else if (v !== 'PreemptLowerPriority' && v !== 'Never') errs.push(fieldNotSupported(`${path}.preemptionPolicy`, v, ['PreemptLowerPriority', 'Never']));
  }
  return errs;
}

/** ValidatePodSpec, in kube's order. `path` is where the spec sits (`spec`, `spec.template.spec`). */
export function validatePodSpec(spec: JsonObject, path: string, ctx: PodSpecContext): FieldError[] {
  const errs: FieldError[] = [];
  if (isNil(spec, 'terminationGracePeriodSeconds')) errs.push(fieldRequired(`${path}.terminationGracePeriodSeconds`));
  const { names: volumes, errs: volumeErrs } = validateVolumes(spec, `${path}.volumes`);
  errs.push(...volumeErrs);
  errs.push(...validateContainers(spec, `${path}.containers`, volumes));
  errs.push(...validateInitContainers(spec, `${path}.initContainers`, volumes));
  if (spec.hostNetwork === true) {
    objects(spec, 'containers').forEach((c, i) => {
      objects(c, 'ports').forEach((p, j) => {
        const hp = num(p, 'hostPort') ?? 0;
        const cp = num(p, 'containerPort') ?? 0;
        if ((ctx.isPod || hp !== 0) && hp !== cp) {
          errs.push(fieldInvalid(`${path}.containers[${i}].ports[${j}].hostPort`, hp, 'must match `containerPort` when `hostNetwork` is true'));
        }
      });
    });
  }
  const restart = str(spec, 'restartPolicy') ?? '';
  if (restart === '') errs.push(fieldRequired(`${path}.restartPolicy`));
  else if (!['Always', 'OnFailure', 'Never'].includes(restart)) {
    errs.push(fieldNotSupported(`${path}.restartPolicy`, restart, ['Always', 'OnFailure', 'Never']));
  }
  const dns = str(spec, 'dnsPolicy') ?? '';
  if (dns === '') errs.push(fieldRequired(`${path}.dnsPolicy`));
  else if (!['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'].includes(dns)) {
    errs.push(fieldNotSupported(`${path}.dnsPolicy`, dns, ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None']));
  }
  errs.push(...validateLabels(`${path}.nodeSelector`, stringMap(spec, 'nodeSelector')));
  if (dns === 'None') {
    const dnsConfig = obj(spec, 'dnsConfig');
    if (!dnsConfig) errs.push(fieldRequired(`${path}.dnsConfig`, 'must provide `dnsConfig` when `dnsPolicy` is None'));
    else if (!(Array.isArray(dnsConfig.nameservers) && dnsConfig.nameservers.length > 0)) {
      errs.push(fieldRequired(`${path}.dnsConfig.nameservers`, 'must provide at least one DNS nameserver when `dnsPolicy` is None'));
    }
  }
  const gates = new Set<string>();
  objects(spec, 'schedulingGates').forEach((g, i) => {
    const name = str(g, 'name') ?? '';
    errs.push(...validateQualifiedName(`${path}.schedulingGates[${i}]`, name));
    if (gates.has(name)) errs.push(fieldDuplicate(`${path}.schedulingGates[${i}]`, name));
    gates.add(name);
  });
  errs.push(...validateNames(spec, path));
  return errs;
}

/** The checks ValidatePodCreate adds on top of the spec for a new Pod. */
export function validatePodCreate(pod: JsonObject): FieldError[] {
  const spec = obj(pod, 'spec') ?? {};
  const errs = validatePodSpec(spec, 'spec', { isPod: true });
  errs.push(...podOnly(spec));
  if (Array.isArray(spec.ephemeralContainers) && spec.ephemeralContainers.length > 0) {
    errs.push(fieldForbidden('spec.ephemeralContainers', 'cannot be set on create'));
  }
  if (!isEmptyString(spec, 'nodeName') && Array.isArray(spec.schedulingGates) && spec.schedulingGates.length > 0) {
    errs.push(fieldForbidden('spec.nodeName', 'cannot be set until all schedulingGates have been cleared'));
  }
  return errs;
}

function podOnly(spec: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  if (isEmptyString(spec, 'serviceAccountName')) {
    objects(spec, 'volumes').forEach((v, vi) => {
      objects(obj(v, 'projected'), 'sources').forEach((s, si) => {
        if (!isNil(s, 'serviceAccountToken')) {
          errs.push(fieldForbidden(`spec.volumes[${vi}].projected.sources[${si}].serviceAccountToken`, 'must not be specified when serviceAccountName is not set'));
        }
      });
    });
  }
  for (const key of ['containers', 'initContainers']) {
    objects(spec, key).forEach((c, i) => {
      const image = str(c, 'image') ?? '';
      if (image !== image.trim()) errs.push(fieldInvalid(`spec.${key}[${i}].image`, image, 'must not have leading or trailing whitespace'));
    });
  }
  return errs;
}

const UPDATABLE_POD_SPEC_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];

function containerUpdates(next: JsonObject[], prev: JsonObject[], path: string): { errs: FieldError[]; stop: boolean } {
  if (next.length !== prev.length) return { errs: [fieldForbidden(path, 'pod updates may not add or remove containers')], stop: true };
  const errs: FieldError[] = [];
  next.forEach((c, i) => {
    const image = str(c, 'image') ?? '';
    if (image === '') errs.push(fieldRequired(`${path}[${i}].image`));
    if (image !== image.trim()) errs.push(fieldInvalid(`${path}[${i}].image`, image, 'must not have leading or trailing whitespace'));
  });
  return { errs, stop: false };
}

/** One line per differing leaf: our stand-in for the go-cmp diff kube appends. */
function describeDiff(before: unknown, after: unknown, path: string, out: string[]): void {
  if (semanticEqual(before, after)) return;
  if (isObject(before) && isObject(after)) {
    for (const k of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) describeDiff(before[k], after[k], `${path}.${k}`, out);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    before.forEach((b, i) => describeDiff(b, after[i], `${path}[${i}]`, out));
    return;
  }
  out.push(`- ${path}: ${JSON.stringify(before ?? null)}`, `+ ${path}: ${JSON.stringify(after ?? null)}`);
}

/** ValidatePodUpdate (main endpoint). */
export function validatePodUpdate(pod: JsonObject, old: JsonObject): FieldError[] {
  const spec = obj(pod, 'spec') ?? {};
  const oldSpec = obj(old, 'spec') ?? {};
  const errs = validatePodSpec(spec, 'spec', { isPod: true });
  errs.push(...podOnly(spec));
  for (const key of ['containers', 'initContainers']) {
    const r = containerUpdates(objects(spec, key), objects(oldSpec, key), `spec.${key}`);
    errs.push(...r.errs);
    if (r.stop) return errs;
  }
  const ads = spec.activeDeadlineSeconds;
  const oldAds = oldSpec.activeDeadlineSeconds;
  if (typeof ads === 'number') {
    if (ads < 0 || ads > MAX_INT32) return [...errs, fieldInvalid('spec.activeDeadlineSeconds', ads, inclusiveRangeError(0, MAX_INT32))];
    if (typeof oldAds === 'number' && oldAds < ads) {
      return [...errs, fieldInvalid('spec.activeDeadlineSeconds', ads, 'must be less than or equal to previous value')];
    }
  } else if (typeof oldAds === 'number') {
    errs.push(fieldInvalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
  }
  const newTolerations = objects(spec, 'tolerations');
  const modified = objects(oldSpec, 'tolerations').some(
    (o) => !newTolerations.some((n) => semanticEqual({ ...o, tolerationSeconds: n.tolerationSeconds }, n)),
  );
  if (modified) errs.push(fieldForbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds'));
  else errs.push(...validateTolerations(newTolerations, 'spec.tolerations'));
  const oldGates = new Set(objects(oldSpec, 'schedulingGates').map((g) => str(g, 'name') ?? ''));
  objects(spec, 'schedulingGates').forEach((g, i) => {
    const name = str(g, 'name') ?? '';
    if (!oldGates.has(name)) errs.push(fieldForbidden(`spec.schedulingGates[${i}].name`, `only deletion is allowed, but found new scheduling gate '${name}'`));
  });
  if (semanticEqual(spec, oldSpec)) return errs;

  const munged: JsonObject = structuredClone(spec);
  for (const key of ['containers', 'initContainers']) {
    const oldList = objects(oldSpec, key);
    if (Array.isArray(munged[key])) objects(munged, key).forEach((c, i) => (c.image = oldList[i]?.image));
  }
  munged.activeDeadlineSeconds = oldSpec.activeDeadlineSeconds;
  munged.schedulingGates = oldSpec.schedulingGates;
  munged.tolerations = oldSpec.tolerations;
  const oldGrace = oldSpec.terminationGracePeriodSeconds;
  if (typeof oldGrace === 'number' && oldGrace < 0 && munged.terminationGracePeriodSeconds === 1) munged.terminationGracePeriodSeconds = oldGrace;
  if (oldGates.size > 0) {
    // Gated pods may gain nodeSelector entries (never lose or change them).
    const oldSel = stringMap(oldSpec, 'nodeSelector') ?? {};
    const newSel = stringMap(munged, 'nodeSelector') ?? {};
    if (!semanticEqual(oldSel, newSel)) {
      if (Object.entries(oldSel).some(([k, v]) => newSel[k] !== v)) {
        errs.push(fieldInvalid('spec.nodeSelector', goStringMapValue(newSel), 'only additions to spec.nodeSelector are allowed (no mutations or deletions)'));
      }
      munged.nodeSelector = oldSpec.nodeSelector;
    }
  }
  if (!semanticEqual(munged, oldSpec)) {
    const diff: string[] = [];
    describeDiff(oldSpec, munged, 'spec', diff);
    errs.push(fieldForbidden('spec', `pod updates may not change fields other than ${UPDATABLE_POD_SPEC_FIELDS.join(',')}\n${diff.join('\n')}`));
  }
  return errs;
}

