// Request bodies in `application/vnd.kubernetes.protobuf`, which kubectl ≥ 1.32 sends for its
// typed commands (`create namespace`, `create deployment`, `auth can-i`, ...) with no fallback
// to JSON. The envelope is the magic `k8s\0` and a runtime.Unknown {typeMeta = 1 {apiVersion = 1,
// kind = 2}, raw = 2, contentEncoding = 3, contentType = 4}; raw is the object itself, decoded
// through our field tables into the JSON a JSON client would have sent. Responses stay JSON:
// clients list application/json in Accept next to protobuf.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { badRequest, unsupportedMediaType } from '../../../apimachinery/errors/index.ts';
import { decodeMessage, type DecodeState } from './decode.ts';
import { DecodeError, WIRE_BYTES, WireReader } from './wire.ts';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** `apiVersion kind` → the message table of the object. */
const KINDS: Record<string, string> = {
  'v1 Namespace': 'Namespace',
  'v1 ConfigMap': 'ConfigMap',
  'v1 Secret': 'Secret',
  'v1 ServiceAccount': 'ServiceAccount',
  'v1 Service': 'Service',
  'v1 Pod': 'Pod',
  'v1 ResourceQuota': 'ResourceQuota',
  'apps/v1 Deployment': 'Deployment',
  'batch/v1 Job': 'Job',
  'batch/v1 CronJob': 'CronJob',
  'rbac.authorization.k8s.io/v1 Role': 'Role',
  'rbac.authorization.k8s.io/v1 RoleBinding': 'RoleBinding',
  'rbac.authorization.k8s.io/v1 ClusterRole': 'ClusterRole',
  'rbac.authorization.k8s.io/v1 ClusterRoleBinding': 'ClusterRoleBinding',
  'scheduling.k8s.io/v1 PriorityClass': 'PriorityClass',
  'policy/v1 PodDisruptionBudget': 'PodDisruptionBudget',
  'policy/v1 Eviction': 'Eviction',
  'policy/v1beta1 Eviction': 'Eviction',
  'networking.k8s.io/v1 Ingress': 'Ingress',
  'authentication.k8s.io/v1 TokenRequest': 'TokenRequest',
  'authentication.k8s.io/v1 SelfSubjectReview': 'SelfSubjectReview',
  'authorization.k8s.io/v1 SelfSubjectAccessReview': 'SelfSubjectAccessReview',
  'authorization.k8s.io/v1 SelfSubjectRulesReview': 'SelfSubjectRulesReview',
  'autoscaling/v2 HorizontalPodAutoscaler': 'HorizontalPodAutoscaler',
  // client-go sends DeleteOptions with either group version.
  'v1 DeleteOptions': 'DeleteOptions',
  'meta.k8s.io/v1 DeleteOptions': 'DeleteOptions',
};

export interface ProtobufDecodeResult {
  object: JsonObject;
  /**
   * Fields that carried data but are not in our tables, as `path#fieldNumber`
   * (e.g. `spec.template.spec#42`); they are left out of `object`.
   */
  unknownFields: string[];
}

interface Envelope {
  apiVersion: string;
  kind: string;
  raw: [number, number];
  contentEncoding: string;
  contentType: string;
}

function readEnvelope(body: Buffer): Envelope {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new DecodeError('the body does not start with the Kubernetes protobuf magic "k8s\\x00"');
  }
  const env: Envelope = { apiVersion: '', kind: '', raw: [0, 0], contentEncoding: '', contentType: '' };
  const r = new WireReader(body, MAGIC.length);
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field > 4 || wire !== WIRE_BYTES) {
      r.skip(wire);
      continue;
    }
    if (field === 1) {
      const [s, e] = r.span();
      const tm = new WireReader(body, s, e);
      while (!tm.done()) {
        const t = tm.tag();
        if (t.field === 1 && t.wire === WIRE_BYTES) env.apiVersion = tm.string();
        else if (t.field === 2 && t.wire === WIRE_BYTES) env.kind = tm.string();
        else tm.skip(t.wire);
      }
    } else if (field === 2) env.raw = r.span();
    else if (field === 3) env.contentEncoding = r.string();
    else env.contentType = r.string();
  }
  return env;
}

/** Decodes a protobuf request body; malformed bytes are a 400, a kind without tables a 415. */
export function decodeProtobuf(body: Buffer): ProtobufDecodeResult {
  try {
    const env = readEnvelope(body);
    if (env.kind === '') throw badRequest("Object 'Kind' is missing in the protobuf body");
    if (env.contentEncoding !== '') {
      throw unsupportedMediaType(`protobuf bodies with content encoding "${env.contentEncoding}" are not supported`);
    }
    if (env.contentType !== '' && env.contentType !== PROTOBUF_MEDIA_TYPE) {
      throw unsupportedMediaType(`protobuf envelopes carrying "${env.contentType}" are not supported`);
    }
    const type = KINDS[`${env.apiVersion} ${env.kind}`];
    if (!type) {
      throw unsupportedMediaType(
        `this server cannot decode ${env.kind} (${env.apiVersion || 'no apiVersion'}) from ${PROTOBUF_MEDIA_TYPE}; ` +
          'send it as application/json',
      );
    }
    const state: DecodeState = { unknown: [] };
    const decoded = decodeMessage(type, body, env.raw[0], env.raw[1], '', state);
    return { object: { apiVersion: env.apiVersion, kind: env.kind, ...decoded }, unknownFields: state.unknown };
  } catch (e) {
    if (e instanceof DecodeError) {
      throw badRequest(`the body of the request could not be decoded as protobuf: ${e.message}`);
    }
    throw e;
  }
}

/** The object of a protobuf body, with fields we have no table for left out. */
export function decodeProtobufObject(body: Buffer): JsonObject {
  return decodeProtobuf(body).object;
}

/** `unknown field "..."` messages in the style of kube-apiserver's strict decoding errors. */
export function unknownFieldMessages(unknownFields: string[]): string[] {
  return unknownFields.map((p) => {
    const [path, field] = p.split('#');
    return `unknown field "${path ? `${path}.` : ''}<protobuf field ${field}>"`;
  });
}
