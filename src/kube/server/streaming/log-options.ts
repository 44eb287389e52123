// PodLogOptions from the query, validated as kube-apiserver does before it asks the kubelet
// (pkg/apis/core/validation: ValidatePodLogOptions; pkg/registry/core/pod/rest/log.go).
import { badRequest, invalid, StatusError } from '../../../apimachinery/errors/index.ts';
import { fieldInvalid, toCauses, type FieldError } from '../../../apimachinery/validation/index.ts';
import type { ContainerLogQuery } from '../../kubelet/streams.ts';
import { queryBool, queryInt } from '../request.ts';

export interface PodLogOptions {
  container: string | null;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  sinceSeconds?: number;
  sinceTime?: Date;
  tailLines?: number;
  limitBytes?: number;
}

export function parsePodLogOptions(query: URLSearchParams, podName: string): PodLogOptions {
  const sinceTimeText = query.get('sinceTime');
  let sinceTime: Date | undefined;
  if (sinceTimeText) {
    const ms = Date.parse(sinceTimeText);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(sinceTimeText) || Number.isNaN(ms)) {
      throw badRequest(`invalid value for sinceTime: ${JSON.stringify(sinceTimeText)}`);
    }
    sinceTime = new Date(ms);
  }
  const options: PodLogOptions = {
    container: query.get('container') || null,
    follow: queryBool(query, 'follow') ?? false,
    previous: queryBool(query, 'previous') ?? false,
    timestamps: queryBool(query, 'timestamps') ?? false,
    sinceSeconds: queryInt(query, 'sinceSeconds'),
    sinceTime,
    tailLines: queryInt(query, 'tailLines'),
    limitBytes: queryInt(query, 'limitBytes'),
  };
  validate(options, podName);
  return options;
}

function validate(o: PodLogOptions, podName: string): void {
  const errors: FieldError[] = [];
  if (o.tailLines !== undefined && o.tailLines < 0) {
    errors.push(fieldInvalid('tailLines', o.tailLines, 'must be greater than or equal to 0'));
  }
  if (o.limitBytes !== undefined && o.limitBytes < 1) {
    errors.push(fieldInvalid('limitBytes', o.limitBytes, 'must be greater than 0'));
  }
  if (o.sinceSeconds !== undefined && o.sinceTime !== undefined) {
    // field.Forbidden(field.NewPath(""), ...): Go prints the empty path before the colon.
    const body = 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified';
    const all = [...errors.map((e) => `${e.field}: ${e.message}`), `: ${body}`];
    throw new StatusError(
      422,
      'Invalid',
      `PodLogOptions "${podName}" is invalid: ${all.length > 1 ? `[${all.join(', ')}]` : all[0]}`,
      {
        name: podName,
        kind: 'PodLogOptions',
        causes: [...toCauses(errors), { reason: 'FieldValueForbidden', message: body }],
      },
    );
  }
  if (o.sinceSeconds !== undefined && o.sinceSeconds < 1) {
    errors.push(fieldInvalid('sinceSeconds', o.sinceSeconds, 'must be greater than 0'));
  }
  if (errors.length > 0) throw invalid('', 'PodLogOptions', podName, toCauses(errors));
}

/** What the kubelet is asked for, with sinceSeconds turned into a moment. */
export function containerLogQuery(o: PodLogOptions, container: string, now = Date.now()): ContainerLogQuery {
  const since = o.sinceTime ?? (o.sinceSeconds !== undefined ? new Date(now - o.sinceSeconds * 1000) : undefined);
  return {
    container,
    previous: o.previous,
    follow: o.follow,
    ...(since ? { since } : {}),
    ...(o.tailLines !== undefined ? { tailLines: o.tailLines } : {}),
    ...(o.limitBytes !== undefined ? { limitBytes: o.limitBytes } : {}),
    timestamps: o.timestamps,
  };
}
