// Labels of the slices the EndpointSlice controller manages (staging/src/k8s.io/endpointslice/
// utils.go setEndpointSliceLabels): the Service's labels without the reserved ones, then the
// service name, the manager and, for a headless Service, the headless label.
import { labelsOf, type WorkloadObject } from '../workloads/common.ts';
import { HEADLESS_LABEL, isHeadless } from './service-pods.ts';

/** discovery.LabelServiceName. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
/** discovery.LabelManagedBy. */
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
/** The controller name kube's EndpointSlice controller writes into MANAGED_BY_LABEL. */
export const CONTROLLER_NAME = 'endpointslice-controller.k8s.io';

const RESERVED = new Set([SERVICE_NAME_LABEL, MANAGED_BY_LABEL, HEADLESS_LABEL]);

export function sliceLabels(svc: WorkloadObject): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(labelsOf(svc))) if (!RESERVED.has(k)) labels[k] = v;
  if (isHeadless(svc)) labels[HEADLESS_LABEL] = '';
  labels[SERVICE_NAME_LABEL] = svc.metadata.name!;
  labels[MANAGED_BY_LABEL] = CONTROLLER_NAME;
  return labels;
}
