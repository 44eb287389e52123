// Pod and pod-template defaults: the scheme defaulters for PodSpec, containers, probes and volumes,
// plus what the ServiceAccount, DefaultTolerationSeconds and Priority admission plugins and the
// pod strategy add. Templates (Deployment, Job, ...) get only the PodSpec part: SetDefaults_Pod
// (requests from limits, enableServiceLinks, host ports) is deliberately Pod-only upstream.
import { forbidden } from '../../../apimachinery/errors/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { ensureObj, isEmptyString, isNil, isZeroInt, obj, objects, setIfEmpty, setIfNil, str } from '../json.ts';
import { formatTime } from '../../../apimachinery/time/index.ts';
import { SYSTEM_PRIORITY_CLASSES, type DefaultsOptions, type PriorityClassInfo } from './options.ts';
import { computeQosClass } from '../qos.ts';
import { canonicalizeResourceList } from '../quantity.ts';
import { canonicalQuantity } from '../../../apimachinery/quantity/quantity.ts';

const DEFAULT_FILE_MODE = 420; // 0644
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

/** Every VolumeSource member of v1.Volume. */
export const VOLUME_SOURCES = [
  'hostPath',
  'emptyDir',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'persistentVolumeClaim',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'downwardAPI',
  'fc',
  'azureFile',
  'configMap',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'projected',
  'portworxVolume',
  'scaleIO',
  'storageos',
  'csi',
  'ephemeral',
  'image',
];

const DOMAIN_RE =
  /^(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*(?::[0-9]+)?$/;
const PATH_COMPONENT_RE = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG_RE = /^[\w][\w.-]{0,127}$/;
const DIGEST_RE = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/;

/**
 * The tag parsers.ParseImageName reports: "latest" when neither tag nor digest is given, "" when
 * the reference does not parse (kube then falls back to IfNotPresent, leaving rejection to the
 * runtime).
 */
export function imageTag(image: string): string {
  let rest = image;
  let digest = '';
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST_RE.test(digest)) return '';
  }
  let tag = '';
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG_RE.test(tag)) return '';
  }
  if (!rest) return '';
  const parts = rest.split('/');
  const first = parts[0];
  const hasDomain =
    parts.length > 1 &&
    (first.includes('.') || first.includes(':') || first === 'localhost' || first !== first.toLowerCase());
  if (hasDomain && !DOMAIN_RE.test(first)) return '';
  const path = hasDomain ? parts.slice(1) : parts;
  if (path.length === 0 || !path.every((p) => PATH_COMPONENT_RE.test(p))) return '';
  return tag || (digest ? '' : 'latest');
}

export function pullPolicyFor(image: string): 'Always' | 'IfNotPresent' {
  return imageTag(image) === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultHttpGet(handler: JsonObject | undefined): void {
  const get = obj(handler, 'httpGet');
  if (!get) return;
  setIfEmpty(get, 'path', '/');
  setIfEmpty(get, 'scheme', 'HTTP');
}

function defaultProbe(probe: JsonObject | undefined): void {
  if (!probe) return;
  if (isZeroInt(probe, 'timeoutSeconds')) probe.timeoutSeconds = 1;
  if (isZeroInt(probe, 'periodSeconds')) probe.periodSeconds = 10;
  if (isZeroInt(probe, 'successThreshold')) probe.successThreshold = 1;
  if (isZeroInt(probe, 'failureThreshold')) probe.failureThreshold = 3;
  defaultHttpGet(probe);
  const grpc = obj(probe, 'grpc');
  if (grpc) setIfNil(grpc, 'service', '');
}

function defaultFieldRef(holder: JsonObject | undefined): void {
  const ref = obj(holder, 'fieldRef');
  if (ref) setIfEmpty(ref, 'apiVersion', 'v1');
}

function defaultContainer(c: JsonObject): void {
  if (isEmptyString(c, 'imagePullPolicy')) c.imagePullPolicy = pullPolicyFor(str(c, 'image') ?? '');
  setIfEmpty(c, 'terminationMessagePath', '/dev/termination-log');
  setIfEmpty(c, 'terminationMessagePolicy', 'File');
  for (const p of objects(c, 'ports')) setIfEmpty(p, 'protocol', 'TCP');
  for (const e of objects(c, 'env')) defaultFieldRef(obj(e, 'valueFrom'));
  // ResourceRequirements is a struct, not a pointer: Go always writes it, empty or not.
  const resources = ensureObj(c, 'resources');
  canonicalizeResourceList(obj(resources, 'limits'));
  canonicalizeResourceList(obj(resources, 'requests'));
  defaultProbe(obj(c, 'livenessProbe'));
  defaultProbe(obj(c, 'readinessProbe'));
  defaultProbe(obj(c, 'startupProbe'));
  const lifecycle = obj(c, 'lifecycle');
  defaultHttpGet(obj(lifecycle, 'postStart'));
  defaultHttpGet(obj(lifecycle, 'preStop'));
}

/** PersistentVolumeClaimSpec defaults, shared with PVCs and StatefulSet claim templates. */
export function defaultPvcSpec(spec: JsonObject): void {
  setIfNil(spec, 'volumeMode', 'Filesystem');
  const resources = obj(spec, 'resources');
  canonicalizeResourceList(obj(resources, 'limits'));
  canonicalizeResourceList(obj(resources, 'requests'));
}

function defaultVolume(v: JsonObject): void {
  if (!VOLUME_SOURCES.some((k) => !isNil(v, k))) v.emptyDir = {};
  const emptyDir = obj(v, 'emptyDir');
  if (emptyDir && !isNil(emptyDir, 'sizeLimit')) {
    const c = canonicalQuantity(emptyDir.sizeLimit);
    if (c !== undefined) emptyDir.sizeLimit = c;
  }
  const hostPath = obj(v, 'hostPath');
  if (hostPath) setIfNil(hostPath, 'type', '');
  for (const k of ['secret', 'configMap']) {
    const src = obj(v, k);
    if (src) setIfNil(src, 'defaultMode', DEFAULT_FILE_MODE);
  }
  const downward = obj(v, 'downwardAPI');
  if (downward) {
    setIfNil(downward, 'defaultMode', DEFAULT_FILE_MODE);
    for (const item of objects(downward, 'items')) defaultFieldRef(item);
  }
  const projected = obj(v, 'projected');
  if (projected) {
    setIfNil(projected, 'defaultMode', DEFAULT_FILE_MODE);
    for (const source of objects(projected, 'sources')) {
      for (const item of objects(obj(source, 'downwardAPI'), 'items')) defaultFieldRef(item);
      const token = obj(source, 'serviceAccountToken');
      if (token) setIfNil(token, 'expirationSeconds', 3600);
    }
  }
  const claimTemplate = obj(obj(v, 'ephemeral'), 'volumeClaimTemplate');
  if (claimTemplate) {
    // ObjectMeta is a struct here, so Go writes it with its null creationTimestamp.
    const md = ensureObj(claimTemplate, 'metadata');
    if (!('creationTimestamp' in md)) md.creationTimestamp = null;
    defaultPvcSpec(ensureObj(claimTemplate, 'spec'));
  }
  const iscsi = obj(v, 'iscsi');
  if (iscsi) setIfEmpty(iscsi, 'iscsiInterface', 'default');
  const rbd = obj(v, 'rbd');
  if (rbd) {
    setIfEmpty(rbd, 'pool', 'rbd');
    setIfEmpty(rbd, 'user', 'admin');
    setIfEmpty(rbd, 'keyring', '/etc/ceph/keyring');
  }
  const azureDisk = obj(v, 'azureDisk');
  if (azureDisk) {
    setIfNil(azureDisk, 'cachingMode', 'ReadWrite');
    setIfNil(azureDisk, 'fsType', 'ext4');
    setIfNil(azureDisk, 'readOnly', false);
    setIfNil(azureDisk, 'kind', 'Shared');
  }
  const scaleIO = obj(v, 'scaleIO');
  if (scaleIO) {
    setIfEmpty(scaleIO, 'storageMode', 'ThinProvisioned');
    setIfEmpty(scaleIO, 'fsType', 'xfs');
  }
  const image = obj(v, 'image');
  if (image && isEmptyString(image, 'pullPolicy')) image.pullPolicy = pullPolicyFor(str(image, 'reference') ?? '');
}

/** SetDefaults_Pod's requests-from-limits, which templates deliberately do not get. */
function requestsFromLimits(c: JsonObject): void {
  const resources = obj(c, 'resources');
  const limits = obj(resources, 'limits');
  if (!resources || !limits) return;
  const requests = ensureObj(resources, 'requests');
  for (const [k, v] of Object.entries(limits)) if (!(k in requests)) requests[k] = v;
}

/** Defaults for a PodSpec wherever it appears; `isPod` adds the Pod-only ones. */
export function defaultPodSpec(spec: JsonObject, isPod: boolean): void {
  setIfEmpty(spec, 'dnsPolicy', 'ClusterFirst');
  setIfEmpty(spec, 'restartPolicy', 'Always');
  setIfNil(spec, 'securityContext', {});
  setIfNil(spec, 'terminationGracePeriodSeconds', 30);
  setIfEmpty(spec, 'schedulerName', 'default-scheduler');
  for (const v of objects(spec, 'volumes')) defaultVolume(v);
  const containers = objects(spec, 'containers');
  const initContainers = objects(spec, 'initContainers');
  if (isPod) {
    for (const c of [...containers, ...initContainers]) requestsFromLimits(c);
    setIfNil(spec, 'enableServiceLinks', true);
    if (spec.hostNetwork === true) {
      for (const c of [...containers, ...initContainers]) {
        for (const p of objects(c, 'ports'))
          if (isZeroInt(p, 'hostPort') && typeof p.containerPort === 'number') p.hostPort = p.containerPort;
      }
    }
  }
  for (const c of [...containers, ...initContainers, ...objects(spec, 'ephemeralContainers')]) defaultContainer(c);
  canonicalizeResourceList(obj(spec, 'overhead'));
  mirrorServiceAccount(spec);
}

/**
 * v1 keeps `serviceAccount` as a deprecated alias: read when serviceAccountName is empty, and
 * always written back as a copy of serviceAccountName.
 */
function mirrorServiceAccount(spec: JsonObject): void {
  if (isEmptyString(spec, 'serviceAccountName') && !isEmptyString(spec, 'serviceAccount'))
    spec.serviceAccountName = spec.serviceAccount;
  if (isEmptyString(spec, 'serviceAccountName')) delete spec.serviceAccount;
  else spec.serviceAccount = spec.serviceAccountName;
}

/** A PodTemplateSpec inside a workload: zero-valued metadata as Go writes it, then spec defaults. */
export function defaultPodTemplate(template: JsonObject): void {
  const md = ensureObj(template, 'metadata');
  if (!('creationTimestamp' in md)) md.creationTimestamp = null;
  defaultPodSpec(ensureObj(template, 'spec'), false);
}

const NOT_READY_TAINT = 'node.kubernetes.io/not-ready';
const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable';
const DEFAULT_TOLERATION_SECONDS = 300;

/** DefaultTolerationSeconds (create and update). */
function addDefaultTolerations(spec: JsonObject, opts: DefaultsOptions): void {
  const tolerations = objects(spec, 'tolerations');
  const tolerates = (key: string): boolean =>
    tolerations.some(
      (t) => (t.key === key || isEmptyString(t, 'key')) && (t.effect === 'NoExecute' || isEmptyString(t, 'effect')),
    );
  const add: JsonObject[] = [];
  const toleration = (key: string, seconds = DEFAULT_TOLERATION_SECONDS): JsonObject => ({
    key,
    operator: 'Exists',
    effect: 'NoExecute',
    tolerationSeconds: seconds,
  });
  if (!tolerates(NOT_READY_TAINT)) add.push(toleration(NOT_READY_TAINT, opts.defaultNotReadyTolerationSeconds));
  if (!tolerates(UNREACHABLE_TAINT)) add.push(toleration(UNREACHABLE_TAINT, opts.defaultUnreachableTolerationSeconds));
  if (add.length > 0) spec.tolerations = [...(Array.isArray(spec.tolerations) ? spec.tolerations : []), ...add];
}

function podForbidden(pod: JsonObject, why: string): Error {
  const name = str(obj(pod, 'metadata'), 'name') ?? '';
  return forbidden(name ? `pods "${name}" is forbidden: ${why}` : `pods is forbidden: ${why}`, {
    name: name || undefined,
    kind: 'pods',
  });
}

/** The Priority admission plugin on create: priority from the PriorityClass, 0 without one. */
function admitPriority(pod: JsonObject, spec: JsonObject, opts: DefaultsOptions): void {
  let cls: PriorityClassInfo | undefined;
  const className = str(spec, 'priorityClassName') ?? '';
  if (className === '') {
    cls = opts.defaultPriorityClass?.();
    if (cls) spec.priorityClassName = cls.name;
    else cls = { name: '', value: 0, preemptionPolicy: 'PreemptLowerPriority' };
  } else {
    cls = SYSTEM_PRIORITY_CLASSES[className] ?? opts.priorityClass?.(className);
    if (!cls) {
      if (opts.priorityClass) throw podForbidden(pod, `no PriorityClass with name ${className} was found`);
      return;
    }
  }
  if (typeof spec.priority === 'number' && spec.priority !== cls.value) {
    throw podForbidden(
      pod,
      `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${cls.value} from the given PriorityClass name`,
    );
  }
  spec.priority = cls.value;
  if (cls.preemptionPolicy) {
    if (typeof spec.preemptionPolicy === 'string' && spec.preemptionPolicy !== cls.preemptionPolicy) {
      throw podForbidden(
        pod,
        `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${cls.preemptionPolicy} from the given PriorityClass name`,
      );
    }
    spec.preemptionPolicy = cls.preemptionPolicy;
  }
}

export function defaultPod(pod: JsonObject, op: 'create' | 'update', opts: DefaultsOptions): void {
  const spec = ensureObj(pod, 'spec');
  defaultPodSpec(spec, true);
  const annotations = obj(obj(pod, 'metadata'), 'annotations');
  const mirror = annotations !== undefined && MIRROR_POD_ANNOTATION in annotations;
  if (op === 'create') {
    if (!mirror && isEmptyString(spec, 'serviceAccountName')) spec.serviceAccountName = 'default';
    mirrorServiceAccount(spec);
    admitPriority(pod, spec, opts);
  } else {
    // Priority admission on update only restores what it set on create; validation forbids changes.
    const oldSpec = obj(opts.old, 'spec');
    if (isNil(spec, 'priority') && !isNil(oldSpec ?? {}, 'priority')) spec.priority = oldSpec?.priority;
    if (isNil(spec, 'preemptionPolicy') && !isNil(oldSpec ?? {}, 'preemptionPolicy'))
      spec.preemptionPolicy = oldSpec?.preemptionPolicy;
  }
  addDefaultTolerations(spec, opts);
  if (op === 'create') pod.status = podCreateStatus(spec, opts);
}

/** The pod strategy's PrepareForCreate: status is the server's, Pending with its QoS class. */
export function podCreateStatus(spec: JsonObject, opts: DefaultsOptions): JsonObject {
  const status: JsonObject = { phase: 'Pending', qosClass: computeQosClass(spec) };
  if (Array.isArray(spec.schedulingGates) && spec.schedulingGates.length > 0) {
    status.conditions = [
      {
        type: 'PodScheduled',
        status: 'False',
        lastProbeTime: null,
        lastTransitionTime: formatTime(opts.now?.() ?? new Date()),
        reason: 'SchedulingGated',
        message: 'Scheduling is blocked due to non-empty scheduling gates',
      },
    ];
  }
  return status;
}
