// spec.conversion of a CRD (kube's validateCustomResourceConversion), reported under the
// internal field names (webhookClientConfig, conversionReviewVersions) as kube does.
import type { FieldError } from '../errors.ts';
import { child, index } from './field-path.ts';
import { forbidden, invalid, notSupported, required } from './field-error.ts';
import { isDNS1035Label } from './names.ts';
import type { CrdSpecView } from './crd-spec.ts';

export function validateConversion(conv: CrdSpecView['conversion']): FieldError[] {
  const errs: FieldError[] = [];
  const p = 'spec.conversion';
  if (!conv.strategy) errs.push(required(child(p, 'strategy')));
  else if (conv.strategy !== 'None' && conv.strategy !== 'Webhook')
    errs.push(notSupported(child(p, 'strategy'), conv.strategy, ['None', 'Webhook']));
  if (conv.strategy === 'Webhook') {
    const cc = conv.webhookClientConfig;
    if (!cc) errs.push(required(child(p, 'webhookClientConfig'), 'required when strategy is set to Webhook'));
    else if ((cc.url === undefined) === (cc.service === undefined)) {
      errs.push(required(child(p, 'webhookClientConfig'), 'exactly one of url or service is required'));
    }
    const versions = conv.conversionReviewVersions ?? [];
    const vp = child(p, 'conversionReviewVersions');
    if (versions.length < 1) errs.push(required(vp));
    else {
      const seen = new Set<string>();
      let accepted = false;
      versions.forEach((v, i) => {
        const s = String(v);
        if (seen.has(s)) {
          errs.push(invalid(index(vp, i), s, 'duplicate version'));
          return;
        }
        seen.add(s);
        for (const m of isDNS1035Label(s)) errs.push(invalid(index(vp, i), s, m));
        if (s === 'v1' || s === 'v1beta1') accepted = true;
      });
      if (!accepted) errs.push(invalid(vp, versions, 'must include at least one of v1, v1beta1'));
    }
  } else {
    if (conv.webhookClientConfig)
      errs.push(forbidden(child(p, 'webhookClientConfig'), 'should not be set when strategy is not set to Webhook'));
    if (conv.conversionReviewVersions?.length) {
      errs.push(
        forbidden(child(p, 'conversionReviewVersions'), 'should not be set when strategy is not set to Webhook'),
      );
    }
  }
  return errs;
}
