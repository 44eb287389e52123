// Workload controllers: deployments, replicasets, replicationcontrollers, daemonsets,
// statefulsets, jobs and controllerrevisions, with their template's containers and images in wide
// output; and podtemplates.
import type { JsonObject } from '../../../../apimachinery/meta/index.ts';
import { humanDuration } from '../../../../apimachinery/time/index.ts';
import { AGE, col, CONTAINERS, IMAGES, NAME, wide } from '../columns.ts';
import {
  ageOf,
  asInt,
  asList,
  asStr,
  at,
  conditionTrue,
  containerCells,
  formatLabels,
  formatSelector,
  meta,
  nameOf,
  since,
  timeMs,
} from '../fields.ts';
import { selectorString } from '../../../builtins/selector.ts';
import type { Printer } from '../types.ts';

const SELECTOR = wide('Selector', 'string', 'Label selector for pods.');

/** spec.replicas as the internal type sees it: v1 defaulting makes a missing value 1. */
function replicas(obj: JsonObject): number {
  const r = at(obj, 'spec', 'replicas');
  return typeof r === 'number' ? Math.trunc(r) : 1;
}

const statusInt = (obj: JsonObject, field: string): number => asInt(at(obj, 'status', field));

export const deploymentPrinter: Printer = {
  columns: [
    NAME,
    col('Ready', 'string', 'Number of the pod with ready state'),
    col(
      'Up-to-date',
      'string',
      'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
    ),
    col(
      'Available',
      'string',
      'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
    ),
    AGE,
    CONTAINERS,
    IMAGES,
    SELECTOR,
  ],
  cells(obj, now) {
    const [names, images] = containerCells(at(obj, 'spec', 'template', 'spec'));
    return [
      nameOf(obj),
      `${statusInt(obj, 'readyReplicas')}/${replicas(obj)}`,
      statusInt(obj, 'updatedReplicas'),
      statusInt(obj, 'availableReplicas'),
      ageOf(obj, now),
      names,
      images,
      selectorString(at(obj, 'spec', 'selector')) ?? '<invalid>',
    ];
  },
};

/** ReplicaSets and ReplicationControllers print alike; only the selector's form differs. */
function replicatedPrinter(
  descriptions: { desired: string; ready: string },
  selector: (obj: JsonObject) => string,
): Printer {
  return {
    columns: [
      NAME,
      col('Desired', 'integer', descriptions.desired),
      col('Current', 'integer', 'Replicas is the most recently observed number of replicas.'),
      col('Ready', 'integer', descriptions.ready),
      AGE,
      CONTAINERS,
      IMAGES,
      SELECTOR,
    ],
    cells(obj, now) {
      const [names, images] = containerCells(at(obj, 'spec', 'template', 'spec'));
      return [
        nameOf(obj),
        replicas(obj),
        statusInt(obj, 'replicas'),
        statusInt(obj, 'readyReplicas'),
        ageOf(obj, now),
        names,
        images,
        selector(obj),
      ];
    },
  };
}

export const replicaSetPrinter = replicatedPrinter(
  {
    desired: 'Replicas is the number of desired pods.',
    ready: 'The number of ready replicas for this replica set.',
  },
  (obj) => formatSelector(at(obj, 'spec', 'selector')),
);

// A ReplicationController's selector is equality-based: labels.FormatLabels of the map.
export const replicationControllerPrinter = replicatedPrinter(
  {
    desired: 'Replicas is the number of desired replicas.',
    ready: 'The number of ready replicas for this replication controller.',
  },
  (obj) => formatLabels(at(obj, 'spec', 'selector')),
);

/** PodTemplates print no age: kube's columns are the template's containers, images and labels. */
export const podTemplatePrinter: Printer = {
  columns: [
    NAME,
    col('Containers', 'string', 'Names of each container in the template.'),
    col('Images', 'string', 'Images referenced by each container in the template.'),
    col('Pod Labels', 'string', 'The labels for the pod template.'),
  ],
  cells(obj) {
    const [names, images] = containerCells(at(obj, 'template', 'spec'));
    return [nameOf(obj), names, images, formatLabels(at(obj, 'template', 'metadata', 'labels'))];
  },
};

export const daemonSetPrinter: Printer = {
  columns: [
    NAME,
    col('Desired', 'integer', 'The total number of nodes that should be running the daemon pod.'),
    col('Current', 'integer', 'The number of nodes that are running at least 1 daemon pod and are supposed to.'),
    col(
      'Ready',
      'integer',
      'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.',
    ),
    col('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod'),
    col(
      'Available',
      'integer',
      'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.',
    ),
    col('Node Selector', 'string', 'NodeSelector is a selector which must be true for the pod to fit on a node.'),
    AGE,
    CONTAINERS,
    IMAGES,
    SELECTOR,
  ],
  cells(obj, now) {
    const podSpec = at(obj, 'spec', 'template', 'spec');
    const [names, images] = containerCells(podSpec);
    return [
      nameOf(obj),
      statusInt(obj, 'desiredNumberScheduled'),
      statusInt(obj, 'currentNumberScheduled'),
      statusInt(obj, 'numberReady'),
      statusInt(obj, 'updatedNumberScheduled'),
      statusInt(obj, 'numberAvailable'),
      formatLabels(at(obj, 'spec', 'template', 'spec', 'nodeSelector')),
      ageOf(obj, now),
      names,
      images,
      formatSelector(at(obj, 'spec', 'selector')),
    ];
  },
};

export const statefulSetPrinter: Printer = {
  columns: [NAME, col('Ready', 'string', 'Number of the pod with ready state'), AGE, CONTAINERS, IMAGES],
  cells(obj, now) {
    const [names, images] = containerCells(at(obj, 'spec', 'template', 'spec'));
    return [nameOf(obj), `${statusInt(obj, 'readyReplicas')}/${replicas(obj)}`, ageOf(obj, now), names, images];
  },
};

function jobStatus(job: JsonObject): string {
  const conditions = at(job, 'status', 'conditions');
  if (conditionTrue(conditions, 'Complete')) return 'Complete';
  if (conditionTrue(conditions, 'Failed')) return 'Failed';
  if (meta(job).deletionTimestamp) return 'Terminating';
  if (conditionTrue(conditions, 'Suspended')) return 'Suspended';
  if (conditionTrue(conditions, 'FailureTarget')) return 'FailureTarget';
  if (conditionTrue(conditions, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

function jobCompletions(job: JsonObject): string {
  const succeeded = statusInt(job, 'succeeded');
  const completions = at(job, 'spec', 'completions');
  if (typeof completions === 'number') return `${succeeded}/${Math.trunc(completions)}`;
  const parallelism = asInt(at(job, 'spec', 'parallelism'));
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(job: JsonObject, now: number): string {
  const start = timeMs(at(job, 'status', 'startTime'));
  if (start === undefined) return '';
  const end = timeMs(at(job, 'status', 'completionTime'));
  return end === undefined ? since(at(job, 'status', 'startTime'), now) : humanDuration(end - start);
}

export const jobPrinter: Printer = {
  columns: [
    NAME,
    col('Status', 'string', 'Status of the job.'),
    col('Completions', 'string', 'The number of pods which reached phase Succeeded.'),
    col('Duration', 'string', 'Time required to complete the job.'),
    AGE,
    CONTAINERS,
    IMAGES,
    SELECTOR,
  ],
  cells(obj, now) {
    const [names, images] = containerCells(at(obj, 'spec', 'template', 'spec'));
    return [
      nameOf(obj),
      jobStatus(obj),
      jobCompletions(obj),
      jobDuration(obj, now),
      ageOf(obj, now),
      names,
      images,
      formatSelector(at(obj, 'spec', 'selector')),
    ];
  },
};

/** The controller owner as `kind.group/name`, lower-cased like schema.GroupKind.String(). */
function controllerOf(obj: JsonObject): string {
  const ref = asList(meta(obj).ownerReferences).find((r) => r.controller === true);
  if (!ref) return '<none>';
  const apiVersion = asStr(ref.apiVersion);
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  const kind = asStr(ref.kind);
  if (!kind && !group) return asStr(ref.name);
  return `${(group ? `${kind}.${group}` : kind).toLowerCase()}/${asStr(ref.name)}`;
}

export const controllerRevisionPrinter: Printer = {
  columns: [
    NAME,
    col('Controller', 'string', 'Controller of the object'),
    col('Revision', 'string', 'Revision indicates the revision of the state represented by Data.'),
    AGE,
  ],
  cells(obj, now) {
    return [nameOf(obj), controllerOf(obj), asInt(obj.revision), ageOf(obj, now)];
  },
};
