// Validation of coordination.k8s.io Lease, admissionregistration.k8s.io webhook configurations,
// node.k8s.io RuntimeClass and apiregistration.k8s.io APIService.
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import {
  fieldDuplicate,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  GoValue,
} from '../../../apimachinery/validation/field-errors.ts';
import { goStringSliceValue } from '../go.ts';
import { isNil, obj, objects, str, stringMap, strings } from '../json.ts';
import { isValidPortNum, validateFullyQualifiedName } from '../names.ts';
import { tryQuantityFromJSON } from '../../../apimachinery/quantity/quantity.ts';
import { validateLabelSelectorJson } from '../selector.ts';
import { validateTolerations } from './pod.ts';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain } from '../../../apimachinery/validation/names.ts';
import { validateLabels } from '../../../apimachinery/validation/labels.ts';

export function validateLease(o: JsonObject): FieldError[] {
  const spec = obj(o, 'spec') ?? {};
  const errs: FieldError[] = [];
  const duration = spec.leaseDurationSeconds;
  if (typeof duration === 'number' && duration <= 0)
    errs.push(fieldInvalid('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
  const transitions = spec.leaseTransitions;
  if (typeof transitions === 'number' && transitions < 0) {
    errs.push(fieldInvalid('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
  }
  if (
    !isNil(spec, 'preferredHolder') &&
    spec.preferredHolder !== '' &&
    (isNil(spec, 'strategy') || spec.strategy === '')
  ) {
    errs.push(fieldForbidden('spec.preferredHolder', 'may only be specified if `strategy` is defined'));
  }
  return errs;
}

/** kube-aggregator's ValidateAPIService (pkg/apis/apiregistration/validation/validation.go). */
export function validateApiService(o: JsonObject): FieldError[] {
  const spec = obj(o, 'spec') ?? {};
  const group = str(spec, 'group') ?? '';
  const version = str(spec, 'version') ?? '';
  const errs: FieldError[] = [];
  const required = `${version}.${group}`;
  const name = str(obj(o, 'metadata'), 'name') ?? '';
  if (name && name !== required)
    errs.push(
      fieldInvalid('metadata.name', name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(required)}`),
    );
  if (!group && version !== 'v1')
    errs.push(fieldRequired('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group) for (const m of isDNS1123Subdomain(group)) errs.push(fieldInvalid('spec.group', group, m));
  for (const m of isDNS1035Label(version)) errs.push(fieldInvalid('spec.version', version, m));
  const groupPriority = typeof spec.groupPriorityMinimum === 'number' ? spec.groupPriorityMinimum : 0;
  if (groupPriority <= 0 || groupPriority > 20000)
    errs.push(fieldInvalid('spec.groupPriorityMinimum', groupPriority, 'must be positive and less than 20000'));
  const versionPriority = typeof spec.versionPriority === 'number' ? spec.versionPriority : 0;
  if (versionPriority <= 0 || versionPriority > 1000)
    errs.push(fieldInvalid('spec.versionPriority', versionPriority, 'must be positive and less than 1000'));
  const service = obj(spec, 'service');
  const caBundle = str(spec, 'caBundle') ?? '';
  if (!service) {
    if (caBundle) errs.push(fieldForbidden('spec.caBundle', 'may not be used when `spec.service` is empty'));
    if (spec.insecureSkipTLSVerify === true)
      errs.push(fieldForbidden('spec.insecureSkipTLSVerify', 'may not be used when `spec.service` is empty'));
    return errs;
  }
  if (!str(service, 'namespace')) errs.push(fieldRequired('spec.service.namespace'));
  if (!str(service, 'name')) errs.push(fieldRequired('spec.service.name'));
  const port = typeof service.port === 'number' ? service.port : 0;
  for (const m of isValidPortNum(port)) errs.push(fieldInvalid('spec.service.port', port, `port is not valid: ${m}`));
  if (spec.insecureSkipTLSVerify === true && caBundle)
    errs.push(fieldInvalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  return errs;
}

const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const SIDE_EFFECTS_ALL = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const SIDE_EFFECTS_NONE = ['None', 'NoneOnDryRun'];
const REVIEW_VERSIONS = ['v1', 'v1beta1'];

function validateResources(resources: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(fieldRequired(path));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let plainResource = false;
  resources.forEach((r, i) => {
    if (r === '') {
      errs.push(fieldRequired(`${path}[${i}]`));
      return;
    }
    if (r === '*/*') doubleWildcard = true;
    if (r === '*') singleWildcard = true;
    const slash = r.indexOf('/');
    if (slash < 0) {
      plainResource = r !== '*';
      return;
    }
    const res = r.slice(0, slash);
    const sub = r.slice(slash + 1);
    if (withWildcardSub.has(res))
      errs.push(fieldInvalid(`${path}[${i}]`, r, `if '${res}/*' is present, must not specify ${r}`));
    if (subWithWildcardRes.has(sub))
      errs.push(fieldInvalid(`${path}[${i}]`, r, `if '*/${sub}' is present, must not specify ${r}`));
    if (sub === '*') withWildcardSub.add(res);
    if (res === '*') subWithWildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) {
    errs.push(
      fieldInvalid(path, goStringSliceValue(resources), "if '*/*' is present, must not specify other resources"),
    );
  }
  if (singleWildcard && plainResource) {
    errs.push(
      fieldInvalid(
        path,
        goStringSliceValue(resources),
        "if '*' is present, must not specify other resources without subresources",
      ),
    );
  }
  return errs;
}

function validateRule(rule: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = strings(rule, 'operations');
  if (ops.length === 0) errs.push(fieldRequired(`${path}.operations`));
  const opsValue = new GoValue(
    `[]admissionregistration.OperationType{${ops.map((o) => JSON.stringify(o)).join(', ')}}`,
  );
  if (ops.length > 1 && ops.includes('*'))
    errs.push(fieldInvalid(`${path}.operations`, opsValue, "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(fieldNotSupported(`${path}.operations[${i}]`, op, OPERATIONS));
  });
  const groups = strings(rule, 'apiGroups');
  if (groups.length === 0) errs.push(fieldRequired(`${path}.apiGroups`));
  if (groups.length > 1 && groups.includes('*')) {
    errs.push(
      fieldInvalid(
        `${path}.apiGroups`,
        goStringSliceValue(groups),
        "if '*' is present, must not specify other API groups",
      ),
    );
  }
  const versions = strings(rule, 'apiVersions');
  if (versions.length === 0) errs.push(fieldRequired(`${path}.apiVersions`));
  if (versions.length > 1 && versions.includes('*')) {
    errs.push(
      fieldInvalid(
        `${path}.apiVersions`,
        goStringSliceValue(versions),
        "if '*' is present, must not specify other API versions",
      ),
    );
  }
  versions.forEach((v, i) => {
    if (v === '') errs.push(fieldRequired(`${path}.apiVersions[${i}]`));
  });
  errs.push(...validateResources(strings(rule, 'resources'), `${path}.resources`));
  const scope = rule.scope;
  if (typeof scope === 'string' && !SCOPES.includes(scope))
    errs.push(fieldNotSupported(`${path}.scope`, scope, SCOPES));
  return errs;
}

/**
 * webhook.ValidateWebhookURL with https required; the URL is split the way Go's url.Parse does.
 * Shared with CRD conversion webhooks (crd/validation/conversion.ts).
 */
export function validateWebhookUrl(path: string, url: string): FieldError[] {
  const form = '; desired format: https://host[/path]';
  const m = /^(?:([a-zA-Z][a-zA-Z0-9+.-]*):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(url);
  if (!m) return [fieldRequired(path, `url must be a valid URL: parse ${JSON.stringify(url)}: invalid URI${form}`)];
  const [, scheme = '', authority = '', , query = '', fragment = ''] = m;
  const at = authority.lastIndexOf('@');
  const host = at >= 0 ? authority.slice(at + 1) : authority;
  const errs: FieldError[] = [];
  if (scheme !== 'https') errs.push(fieldInvalid(path, scheme, `'https' is the only allowed URL scheme${form}`));
  if (host === '') errs.push(fieldInvalid(path, host, `host must be specified${form}`));
  if (at >= 0) errs.push(fieldInvalid(path, authority.slice(0, at), 'user information is not permitted in the URL'));
  if (fragment) errs.push(fieldInvalid(path, fragment, 'fragments are not permitted in the URL'));
  if (query) errs.push(fieldInvalid(path, query, 'query parameters are not permitted in the URL'));
  return errs;
}

/** webhook.ValidateWebhookService, for admission configurations and CRD conversion webhooks. */
export function validateWebhookService(path: string, svc: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  // kube-apiserver passes name and namespace to this check in swapped order
  // (kubernetes/kubernetes#141353), so a missing name is reported on `namespace` and vice versa.
  if ((str(svc, 'namespace') ?? '') === '') errs.push(fieldRequired(`${path}.name`));
  if ((str(svc, 'name') ?? '') === '') errs.push(fieldRequired(`${path}.namespace`));
  const port = typeof svc.port === 'number' ? svc.port : 443;
  const portErrs = isValidPortNum(port);
  if (portErrs.length > 0) errs.push(fieldInvalid(`${path}.port`, port, `port is not valid: ${portErrs.join(', ')}`));
  const urlPath = str(svc, 'path');
  if (urlPath === undefined || urlPath === '' || urlPath === '/') return errs;
  if (urlPath === '//') return [...errs, fieldInvalid(`${path}.path`, urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) errs.push(fieldInvalid(`${path}.path`, urlPath, "must start with a '/'"));
  let check = urlPath.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (step === '') errs.push(fieldInvalid(`${path}.path`, urlPath, `segment[${i}] may not be empty`));
    else
      for (const msg of isDNS1123Subdomain(step))
        errs.push(fieldInvalid(`${path}.path`, urlPath, `segment[${i}]: ${msg}`));
  });
  return errs;
}

function validateReviewVersions(versions: unknown, path: string): FieldError[] {
  const list = Array.isArray(versions) ? versions.filter((v): v is string => typeof v === 'string') : [];
  if (list.length === 0) return [fieldRequired(path, `must specify one of ${REVIEW_VERSIONS.join(', ')}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  list.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(fieldInvalid(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const m of isDNS1035Label(v)) errs.push(fieldInvalid(`${path}[${i}]`, v, m));
  });
  if (!list.some((v) => REVIEW_VERSIONS.includes(v))) {
    errs.push(
      fieldInvalid(path, goStringSliceValue(list), `must include at least one of ${REVIEW_VERSIONS.join(', ')}`),
    );
  }
  return errs;
}

function validateWebhook(hook: JsonObject, path: string, mutating: boolean, sideEffects: string[]): FieldError[] {
  const errs = validateFullyQualifiedName(str(hook, 'name') ?? '', `${path}.name`);
  objects(hook, 'rules').forEach((r, i) => errs.push(...validateRule(r, `${path}.rules[${i}]`)));
  const fp = hook.failurePolicy;
  if (typeof fp === 'string' && fp !== 'Fail' && fp !== 'Ignore')
    errs.push(fieldNotSupported(`${path}.failurePolicy`, fp, ['Fail', 'Ignore']));
  const mp = hook.matchPolicy;
  if (typeof mp === 'string' && mp !== 'Equivalent' && mp !== 'Exact')
    errs.push(fieldNotSupported(`${path}.matchPolicy`, mp, ['Equivalent', 'Exact']));
  const se = hook.sideEffects;
  if (se === undefined || se === null)
    errs.push(fieldRequired(`${path}.sideEffects`, `must specify one of ${sideEffects.join(', ')}`));
  else if (typeof se !== 'string' || !sideEffects.includes(se))
    errs.push(fieldNotSupported(`${path}.sideEffects`, typeof se === 'string' ? se : '', sideEffects));
  const timeout = hook.timeoutSeconds;
  if (typeof timeout === 'number' && (timeout > 30 || timeout < 1)) {
    errs.push(fieldInvalid(`${path}.timeoutSeconds`, timeout, 'the timeout value must be between 1 and 30 seconds'));
  }
  errs.push(...validateLabelSelectorJson(hook.namespaceSelector, `${path}.namespaceSelector`));
  errs.push(...validateLabelSelectorJson(hook.objectSelector, `${path}.objectSelector`));
  const rp = hook.reinvocationPolicy;
  if (mutating && typeof rp === 'string' && rp !== 'IfNeeded' && rp !== 'Never') {
    errs.push(fieldNotSupported(`${path}.reinvocationPolicy`, rp, ['IfNeeded', 'Never']));
  }
  const cc = obj(hook, 'clientConfig') ?? {};
  const hasUrl = !isNil(cc, 'url');
  const service = obj(cc, 'service');
  if (hasUrl === (service !== undefined))
    errs.push(fieldRequired(`${path}.clientConfig`, 'exactly one of url or service is required'));
  else if (hasUrl) errs.push(...validateWebhookUrl(`${path}.clientConfig.url`, str(cc, 'url') ?? ''));
  else if (service) errs.push(...validateWebhookService(`${path}.clientConfig.service`, service));
  return errs;
}

/** On update the stricter rules apply only if every existing webhook already met them. */
export function validateWebhookConfiguration(o: JsonObject, mutating: boolean, old?: JsonObject): FieldError[] {
  const oldHooks = old ? objects(old, 'webhooks') : undefined;
  const requireNoSideEffects =
    !oldHooks || oldHooks.every((h) => typeof h.sideEffects === 'string' && SIDE_EFFECTS_NONE.includes(h.sideEffects));
  const requireKnownReview =
    !oldHooks ||
    oldHooks.every(
      (h) =>
        strings(h, 'admissionReviewVersions').length === 0 ||
        strings(h, 'admissionReviewVersions').some((v) => REVIEW_VERSIONS.includes(v)),
    );
  const requireUnique = !oldHooks || new Set(oldHooks.map((h) => str(h, 'name'))).size === oldHooks.length;
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objects(o, 'webhooks').forEach((hook, i) => {
    const path = `webhooks[${i}]`;
    errs.push(...validateWebhook(hook, path, mutating, requireNoSideEffects ? SIDE_EFFECTS_NONE : SIDE_EFFECTS_ALL));
    const versionErrs = validateReviewVersions(hook.admissionReviewVersions, `${path}.admissionReviewVersions`);
    errs.push(
      ...(requireKnownReview
        ? versionErrs
        : versionErrs.filter((e) => !e.message.includes('must include at least one of'))),
    );
    const name = str(hook, 'name') ?? '';
    if (requireUnique && name) {
      if (names.has(name)) errs.push(fieldDuplicate(`${path}.name`, name));
      else names.add(name);
    }
  });
  return errs;
}

export function validateRuntimeClass(o: JsonObject, old?: JsonObject): FieldError[] {
  const handler = str(o, 'handler') ?? '';
  const errs = isDNS1123Label(handler).map((m) => fieldInvalid('handler', handler, m));
  const podFixed = obj(obj(o, 'overhead'), 'podFixed') ?? {};
  for (const name of Object.keys(podFixed).sort()) {
    const q = tryQuantityFromJSON(podFixed[name]);
    if (q && q.sign() < 0)
      errs.push(
        fieldInvalid(`overhead.podFixed[${name}]`, String(podFixed[name]), 'must be greater than or equal to 0'),
      );
  }
  const scheduling = obj(o, 'scheduling');
  if (scheduling) {
    errs.push(...validateLabels(stringMap(scheduling, 'nodeSelector'), 'scheduling.nodeSelector'));
    errs.push(...validateTolerations(objects(scheduling, 'tolerations'), 'scheduling.tolerations'));
  }
  if (old && handler !== (str(old, 'handler') ?? '')) errs.push(fieldInvalid('handler', handler, 'field is immutable'));
  return errs;
}
