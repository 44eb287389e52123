// Which printer serves which resource: kube-apiserver's built-in printers by group/resource,
// custom resources by their printer columns, and the NAME / CREATED AT default for the rest.
import type { ResourceDef } from '../../../registry/resource.ts';
import type { Printer } from '../types.ts';
import { clusterRoleBindingPrinter, roleBindingPrinter } from './rbac.ts';
import { horizontalPodAutoscalerPrinter } from './autoscaling.ts';
import {
  apiServicePrinter,
  leasePrinter,
  podDisruptionBudgetPrinter,
  priorityClassPrinter,
  resourceQuotaPrinter,
  runtimeClassPrinter,
  webhookConfigurationPrinter,
} from './cluster.ts';
import { configMapPrinter, namespacePrinter, secretPrinter, serviceAccountPrinter } from './config.ts';
import { customResourcePrinter } from './custom.ts';
import { cronJobPrinter } from './cronjobs.ts';
import { defaultPrinter } from './default.ts';
import { endpointSlicePrinter } from './discovery.ts';
import { eventPrinter } from './events.ts';
import { nodePrinter } from './nodes.ts';
import { podPrinter } from './pods.ts';
import { endpointsPrinter, ingressPrinter, networkPolicyPrinter, servicePrinter } from './services.ts';
import { persistentVolumeClaimPrinter, persistentVolumePrinter } from './storage.ts';
import {
  controllerRevisionPrinter,
  daemonSetPrinter,
  deploymentPrinter,
  jobPrinter,
  podTemplatePrinter,
  replicaSetPrinter,
  replicationControllerPrinter,
  statefulSetPrinter,
} from './workloads.ts';

const BUILTIN: Record<string, Printer> = {
  '/pods': podPrinter,
  '/nodes': nodePrinter,
  '/namespaces': namespacePrinter,
  '/services': servicePrinter,
  '/endpoints': endpointsPrinter,
  '/configmaps': configMapPrinter,
  '/secrets': secretPrinter,
  '/serviceaccounts': serviceAccountPrinter,
  '/events': eventPrinter,
  '/persistentvolumes': persistentVolumePrinter,
  '/persistentvolumeclaims': persistentVolumeClaimPrinter,
  '/resourcequotas': resourceQuotaPrinter,
  '/replicationcontrollers': replicationControllerPrinter,
  '/podtemplates': podTemplatePrinter,
  'apiregistration.k8s.io/apiservices': apiServicePrinter,
  'autoscaling/horizontalpodautoscalers': horizontalPodAutoscalerPrinter,
  'apps/deployments': deploymentPrinter,
  'apps/replicasets': replicaSetPrinter,
  'apps/daemonsets': daemonSetPrinter,
  'apps/statefulsets': statefulSetPrinter,
  'apps/controllerrevisions': controllerRevisionPrinter,
  'batch/jobs': jobPrinter,
  'batch/cronjobs': cronJobPrinter,
  'coordination.k8s.io/leases': leasePrinter,
  'events.k8s.io/events': eventPrinter,
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': webhookConfigurationPrinter,
  'admissionregistration.k8s.io/validatingwebhookconfigurations': webhookConfigurationPrinter,
  'rbac.authorization.k8s.io/rolebindings': roleBindingPrinter,
  'rbac.authorization.k8s.io/clusterrolebindings': clusterRoleBindingPrinter,
  'networking.k8s.io/ingresses': ingressPrinter,
  'networking.k8s.io/networkpolicies': networkPolicyPrinter,
  'node.k8s.io/runtimeclasses': runtimeClassPrinter,
  'discovery.k8s.io/endpointslices': endpointSlicePrinter,
  'policy/poddisruptionbudgets': podDisruptionBudgetPrinter,
  'scheduling.k8s.io/priorityclasses': priorityClassPrinter,
};

const forCustom = new WeakMap<ResourceDef, Printer>();

export function printerFor(def: ResourceDef): Printer {
  if (!def.builtin) {
    if (!def.printerColumns) return defaultPrinter;
    let p = forCustom.get(def);
    if (!p) {
      p = customResourcePrinter(def.printerColumns);
      forCustom.set(def, p);
    }
    return p;
  }
  const printer = BUILTIN[`${def.group}/${def.resource}`] ?? defaultPrinter;
  const view = def.view;
  // A view (events.k8s.io Events) is printed from its stored form, as kube prints the internal type.
  if (!view) return printer;
  return {
    columns: printer.columns,
    cells: (obj, now) => printer.cells(view.toStored(obj), now),
    conditions: printer.conditions && ((obj) => printer.conditions?.(view.toStored(obj))),
  };
}
