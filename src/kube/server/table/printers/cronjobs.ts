// batch/v1 cronjobs, as kube's printCronJob (pkg/printers/internalversion/printers.go): the
// schedule, time zone, suspension, the number of active Jobs and the last schedule time, with
// the job template's containers, images and selector in wide output.
import type { JsonObject } from '../../../../apimachinery/meta/index.ts';
import { AGE, col, CONTAINERS, IMAGES, NAME, wide } from '../columns.ts';
import { ageOf, asList, asStr, at, containerCells, formatSelector, nameOf, since } from '../fields.ts';
import type { Printer } from '../types.ts';

/** printBoolPtr: `<unset>` for a missing pointer. */
function boolPtr(v: unknown): string {
  return typeof v === 'boolean' ? (v ? 'True' : 'False') : '<unset>';
}

export const cronJobPrinter: Printer = {
  columns: [
    NAME,
    col('Schedule', 'string', 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.'),
    col(
      'Timezone',
      'string',
      'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.',
    ),
    col(
      'Suspend',
      'boolean',
      'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions. Defaults to false.',
    ),
    col('Active', 'integer', 'A list of pointers to currently running jobs.'),
    col('Last Schedule', 'string', 'Information when was the last time the job was successfully scheduled.'),
    AGE,
    CONTAINERS,
    IMAGES,
    wide(
      'Selector',
      'string',
      'A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
    ),
  ],
  cells(obj: JsonObject, now: number) {
    const [names, images] = containerCells(at(obj, 'spec', 'jobTemplate', 'spec', 'template', 'spec'));
    const tz = at(obj, 'spec', 'timeZone');
    const last = at(obj, 'status', 'lastScheduleTime');
    return [
      nameOf(obj),
      asStr(at(obj, 'spec', 'schedule')),
      typeof tz === 'string' ? tz : '<none>',
      boolPtr(at(obj, 'spec', 'suspend')),
      asList(at(obj, 'status', 'active')).length,
      typeof last === 'string' ? since(last, now) : '<none>',
      ageOf(obj, now),
      names,
      images,
      formatSelector(at(obj, 'spec', 'jobTemplate', 'spec', 'selector')),
    ];
  },
};
