// spec.conversion of a CRD (kube's validateCustomResourceConversion), reported under the
// internal field names (webhookClientConfig, conversionReviewVersions) as kube does.
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import { child, index } from '../../../apimachinery/validation/field-path.ts';
import {
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
} from '../../../apimachinery/validation/field-errors.ts';
import { isDNS1035Label } from '../../../apimachinery/validation/names.ts';
import { isObject } from '../../../apimachinery/json/index.ts';
import { validateWebhookService, validateWebhookUrl } from '../../builtins/validation/misc.ts';
import type { CrdSpecView } from './spec.ts';

export function validateConversion(conv: CrdSpecView['conversion']): FieldError[] {
  const errs: FieldError[] = [];
  const p = 'spec.conversion';
  if (!conv.strategy) errs.push(fieldRequired(child(p, 'strategy')));
  else if (conv.strategy !== 'None' && conv.strategy !== 'Webhook')
    errs.push(fieldNotSupported(child(p, 'strategy'), conv.strategy, ['None', 'Webhook']));
  if (conv.strategy === 'Webhook') {
    const cc = conv.webhookClientConfig;
    if (!cc) errs.push(fieldRequired(child(p, 'webhookClientConfig'), 'required when strategy is set to Webhook'));
    else if ((cc.url === undefined) === (cc.service === undefined)) {
      errs.push(fieldRequired(child(p, 'webhookClientConfig'), 'exactly one of url or service is required'));
    } else if (cc.url !== undefined) {
      errs.push(...validateWebhookUrl(child(p, 'webhookClientConfig', 'url'), String(cc.url)));
    } else {
      const service = isObject(cc.service) ? cc.service : {};
      errs.push(...validateWebhookService(child(p, 'webhookClientConfig', 'service'), service));
    }
    const versions = conv.conversionReviewVersions ?? [];
    const vp = child(p, 'conversionReviewVersions');
    if (versions.length < 1) errs.push(fieldRequired(vp));
    else {
      const seen = new Set<string>();
      let accepted = false;
      versions.forEach((v, i) => {
        const s = String(v);
        if (seen.has(s)) {
          errs.push(fieldInvalid(index(vp, i), s, 'duplicate version'));
          return;
        }
        seen.add(s);
        for (const m of isDNS1035Label(s)) errs.push(fieldInvalid(index(vp, i), s, m));
        if (s === 'v1' || s === 'v1beta1') accepted = true;
      });
      if (!accepted) errs.push(fieldInvalid(vp, versions, 'must include at least one of v1, v1beta1'));
    }
  } else {
    if (conv.webhookClientConfig)
      errs.push(
        fieldForbidden(child(p, 'webhookClientConfig'), 'should not be set when strategy is not set to Webhook'),
      );
    if (conv.conversionReviewVersions?.length) {
      errs.push(
        fieldForbidden(child(p, 'conversionReviewVersions'), 'should not be set when strategy is not set to Webhook'),
      );
    }
  }
  return errs;
}
