// batch/v1 CronJob (k8s.io/api/batch/v1/types.go, fields in Go order). The spec is closed; the job
// template refers to the Job model's spec; the status is open.
import {
  BATCH,
  CORE,
  META,
  bool,
  int32,
  int64,
  list,
  object,
  objectMetaRef,
  oneOf,
  openObject,
  ref,
  str,
  typeMeta,
  type Schema,
} from './schema.ts';

export const batchModels: Record<string, Schema> = {
  [`${BATCH}.CronJob`]: object('CronJob represents the configuration of a single cron job.', {
    ...typeMeta('CronJob'),
    metadata: objectMetaRef(),
    spec: ref(`${BATCH}.CronJobSpec`, 'Specification of the desired behavior of a cron job, including the schedule.'),
    status: openObject('Current status of a cron job. Read-only.', {
      active: list(ref(`${CORE}.ObjectReference`), 'Pointers to currently running jobs.'),
      lastScheduleTime: ref(`${META}.Time`, 'When the job was last successfully scheduled.'),
      lastSuccessfulTime: ref(`${META}.Time`, 'When the job last successfully completed.'),
    }),
  }),
  [`${BATCH}.CronJobSpec`]: object(
    'CronJobSpec describes how the job execution will look like and when it will actually run.',
    {
      schedule: str('The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.'),
      timeZone: str("The time zone name for the given schedule; the controller's time zone when unset."),
      startingDeadlineSeconds: int64('Deadline in seconds for starting the job if it misses its scheduled time.'),
      concurrencyPolicy: oneOf('How to treat concurrent executions of a job. Default Allow.', [
        'Allow',
        'Forbid',
        'Replace',
      ]),
      suspend: bool('Suspend subsequent executions; does not apply to already started executions. Default false.'),
      jobTemplate: ref(`${BATCH}.JobTemplateSpec`, 'The job that will be created when executing a CronJob.'),
      successfulJobsHistoryLimit: int32('Successful finished jobs to retain. Default 3.'),
      failedJobsHistoryLimit: int32('Failed finished jobs to retain. Default 1.'),
    },
    ['schedule', 'jobTemplate'],
  ),
  [`${BATCH}.JobTemplateSpec`]: object(
    'JobTemplateSpec describes the data a Job should have when created from a template.',
    {
      metadata: objectMetaRef(),
      spec: ref(`${BATCH}.JobSpec`, 'Specification of the desired behavior of the job.'),
    },
  ),
};
