// batch/v1 CronJob validation (ValidateCronJobSpec, pkg/apis/batch/validation/validation.go): the
// schedule (parse errors worded as robfig/cron's; TZ= / CRON_TZ= refused in favour of
// spec.timeZone), the time zone, concurrencyPolicy, the non-negative counts, and the job
// template's pod template (restartPolicy OnFailure or Never).
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import { fieldInvalid, fieldNotSupported, fieldRequired } from '../../../apimachinery/validation/field-errors.ts';
import { isKnownTimeZone, parseSchedule } from '../cron.ts';
import { obj, str } from '../json.ts';
import { nonNegative, validateTemplate } from './apps.ts';

function validateSchedule(schedule: string): FieldError[] {
  const errs: FieldError[] = [];
  try {
    parseSchedule(schedule);
  } catch (e) {
    errs.push(fieldInvalid('spec.schedule', schedule, (e as Error).message));
  }
  if (schedule.includes('TZ'))
    errs.push(
      fieldInvalid('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'),
    );
  return errs;
}

function validateTimeZone(tz: unknown): FieldError[] {
  if (typeof tz !== 'string') return [];
  if (tz === '' || tz.toLowerCase() === 'local' || !isKnownTimeZone(tz))
    return [fieldInvalid('spec.timeZone', tz, `unknown time zone ${tz}`)];
  return [];
}

export function validateCronJob(o: JsonObject): FieldError[] {
  const spec = obj(o, 'spec') ?? {};
  const errs: FieldError[] = [];
  const schedule = str(spec, 'schedule') ?? '';
  if (schedule === '') errs.push(fieldRequired('spec.schedule'));
  else errs.push(...validateSchedule(schedule));
  errs.push(...validateTimeZone(spec.timeZone));
  for (const f of ['startingDeadlineSeconds', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit'])
    errs.push(...nonNegative(`spec.${f}`, spec[f]));
  const policy = str(spec, 'concurrencyPolicy') ?? '';
  if (!['Allow', 'Forbid', 'Replace'].includes(policy))
    errs.push(
      policy === ''
        ? fieldRequired('spec.concurrencyPolicy')
        : fieldNotSupported('spec.concurrencyPolicy', policy, ['Allow', 'Forbid', 'Replace']),
    );
  const jobSpec = obj(obj(spec, 'jobTemplate'), 'spec') ?? {};
  for (const f of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished'])
    errs.push(...nonNegative(`spec.jobTemplate.spec.${f}`, jobSpec[f]));
  const template = obj(jobSpec, 'template') ?? {};
  errs.push(...validateTemplate(template, 'spec.jobTemplate.spec.template'));
  const restart = str(obj(template, 'spec'), 'restartPolicy') ?? '';
  if (restart !== 'OnFailure' && restart !== 'Never')
    errs.push(fieldNotSupported('spec.jobTemplate.spec.template.spec.restartPolicy', restart, ['OnFailure', 'Never']));
  return errs;
}
