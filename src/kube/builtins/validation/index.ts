// Entry point for built-in validation: the kind-specific rules kube-apiserver applies after
// defaulting, with its messages and field paths. Metadata (names, labels, annotations, owner
// references) is validated by the store and is not repeated here. Run it on defaulted objects:
// several checks (`Required value` on restartPolicy, imagePullPolicy, ...) only make sense after
// applyDefaults, exactly as upstream.
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { fieldInvalid } from '../../../apimachinery/validation/field-errors.ts';
import { isObject } from '../../../apimachinery/json/index.ts';
import {
  validateDaemonSet,
  validateDeployment,
  validateJob,
  validatePodTemplate,
  validateReplicaSet,
  validateReplicationController,
  validateStatefulSet,
} from './apps.ts';
import { validateCronJob } from './cronjob.ts';
import { validateEndpointSlice } from './discovery.ts';
import { validateHorizontalPodAutoscaler } from './autoscaling.ts';
import { validateConfigMap, validateEvent, validateNamespace, validateNode, validateSecret } from './core.ts';
import { validateApiService, validateLease, validateRuntimeClass, validateWebhookConfiguration } from './misc.ts';
import { validatePodCreate, validatePodUpdate } from './pod.ts';
import { validateService } from './service.ts';

export interface ValidateOptions {
  /** Which endpoint the write came through; `status` writes only get status checks. */
  subresource?: 'main' | 'status';
  /** Family of the Service CIDR on this single-stack cluster. */
  serviceIpFamily?: 'IPv4' | 'IPv6';
}

/**
 * Field errors for a built-in object (`old` set on update). Unknown kinds and status writes of
 * kinds without status rules return no errors.
 */
export function validate(
  group: string,
  kind: string,
  obj: JsonObject,
  old?: JsonObject,
  opts: ValidateOptions = {},
): FieldError[] {
  if (opts.subresource === 'status') return validateStatus(group, kind, obj, old);
  switch (`${group}/${kind}`) {
    case '/Pod':
      return old ? validatePodUpdate(obj, old) : validatePodCreate(obj);
    case '/PodTemplate':
      return validatePodTemplate(obj);
    case '/ReplicationController':
      return validateReplicationController(obj);
    case '/Service':
      return validateService(obj, old, opts.serviceIpFamily);
    case '/ConfigMap':
      return validateConfigMap(obj, old);
    case '/Secret':
      return validateSecret(obj, old);
    case '/Namespace':
      return validateNamespace(obj);
    case '/Node':
      return validateNode(obj, old);
    case '/Event':
      return validateEvent(obj);
    case 'apps/Deployment':
      return validateDeployment(obj, old);
    case 'apps/ReplicaSet':
      return validateReplicaSet(obj);
    case 'apps/DaemonSet':
      return validateDaemonSet(obj, old);
    case 'apps/StatefulSet':
      return validateStatefulSet(obj, old);
    case 'batch/Job':
      return validateJob(obj);
    case 'batch/CronJob':
      return validateCronJob(obj);
    case 'autoscaling/HorizontalPodAutoscaler':
      return validateHorizontalPodAutoscaler(obj);
    case 'apiregistration.k8s.io/APIService':
      return validateApiService(obj);
    case 'coordination.k8s.io/Lease':
      return validateLease(obj);
    case 'admissionregistration.k8s.io/MutatingWebhookConfiguration':
      return validateWebhookConfiguration(obj, true, old);
    case 'admissionregistration.k8s.io/ValidatingWebhookConfiguration':
      return validateWebhookConfiguration(obj, false, old);
    case 'node.k8s.io/RuntimeClass':
      return validateRuntimeClass(obj, old);
    case 'discovery.k8s.io/EndpointSlice':
      return validateEndpointSlice(obj, old);
    default:
      return [];
  }
}

function validateStatus(group: string, kind: string, obj: JsonObject, old: JsonObject | undefined): FieldError[] {
  const status = isObject(obj.status) ? obj.status : {};
  if (group === '' && kind === 'Namespace') {
    const terminating = Boolean(isObject(obj.metadata) && obj.metadata.deletionTimestamp);
    const phase = typeof status.phase === 'string' ? status.phase : '';
    if (phase !== (terminating ? 'Terminating' : 'Active')) {
      const detail = terminating
        ? "may only be 'Terminating' if `deletionTimestamp` is not empty"
        : "may only be 'Active' if `deletionTimestamp` is empty";
      return [fieldInvalid('status.Phase', phase, detail)];
    }
  }
  if (group === '' && kind === 'Pod' && old) {
    const qos = typeof status.qosClass === 'string' ? status.qosClass : '';
    const oldQos = isObject(old.status) && typeof old.status.qosClass === 'string' ? old.status.qosClass : '';
    if (qos !== oldQos) return [fieldInvalid('status.qosClass', qos, 'field is immutable')];
  }
  if (group === '' && kind === 'Node') return validateNode(obj, old);
  return [];
}
