// Which representation a request's Accept header asks for: the resource's own kind, or one of
// the meta.k8s.io conversions (Table, PartialObjectMetadata, PartialObjectMetadataList). The
// first clause the server can honour wins, as in kube-apiserver's NegotiateMediaTypeOptions
// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/negotiation/negotiate.go) with the
// conversions RequestScope.AllowsMediaTypeTransform admits (handlers/rest.go). Conversions are
// answered in JSON only: a protobuf or YAML clause asking for one is passed over.
import type { IncomingMessage } from 'node:http';
import { StatusError } from '../../../apimachinery/errors/index.ts';
import { acceptsJson, parseAccept, type AcceptClause } from './accept.ts';

export type MetaVersion = 'v1' | 'v1beta1';
export type ConversionKind = 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';

/** `as: undefined` is the resource's own representation. */
export type OutputTarget = { as: undefined } | { as: ConversionKind; version: MetaVersion };

export const OWN_REPRESENTATION: OutputTarget = { as: undefined };

export interface ServedConversions {
  /** Whether Table output is installed (kube: the resource has a TableConvertor). */
  table: boolean;
}

const NOT_ACCEPTABLE =
  'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf';

function conversionOf(c: AcceptClause, served: ServedConversions): OutputTarget | undefined {
  if (c.params.get('g') !== 'meta.k8s.io' || !acceptsJson(c)) return undefined;
  const version = c.params.get('v');
  if (version !== 'v1' && version !== 'v1beta1') return undefined;
  const as = c.params.get('as');
  if (as === 'Table') return served.table ? { as, version } : undefined;
  if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return { as, version };
  return undefined;
}

/** Throws 406 when every clause asks for a conversion that cannot be served. */
export function negotiateOutput(req: IncomingMessage, served: ServedConversions): OutputTarget {
  const header = req.headers.accept;
  if (!header) return OWN_REPRESENTATION;
  let sawConversion = false;
  for (const c of parseAccept(Array.isArray(header) ? header.join(',') : header)) {
    if (c.q <= 0) continue;
    if (!c.params.has('as') && !c.params.has('g') && !c.params.has('v')) return OWN_REPRESENTATION;
    sawConversion = true;
    const target = conversionOf(c, served);
    if (target) return target;
  }
  if (sawConversion) throw new StatusError(406, 'NotAcceptable', NOT_ACCEPTABLE);
  return OWN_REPRESENTATION;
}
