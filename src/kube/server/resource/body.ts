// Reads a write's body once and decodes it the way its verb takes it: an object (JSON, YAML or
// protobuf), a patch (JSON or apply YAML), DeleteOptions, or the raw bytes the scale
// subresource decodes itself. An object body that does not parse is refused as kube's
// create/update handlers refuse it (handlers/rest.go transformDecodeError).
import type { IncomingMessage } from 'node:http';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { UndecodableBody, unrecognizedObject } from '../../registry/body-errors.ts';
import type { RequestContext } from '../../registry/context.ts';
import type { ResourceDef } from '../../registry/resource.ts';
import { decodeBody, decodePatch, mediaType, OBJECT_BODY_TYPES, readBody, type BodyValidation } from '../request.ts';
import { deleteOptions, type RequestDeleteOptions } from './delete-options.ts';
import type { WriteVerb } from './resolve.ts';

type VerbOf<K extends WriteVerb['kind']> = Extract<WriteVerb, { kind: K }>;

/** A write verb with its decoded body. */
export type DecodedWrite =
  | (VerbOf<'create' | 'update' | 'evict'> & { object: unknown })
  | (VerbOf<'bind'> & { binding: JsonObject })
  | (VerbOf<'patch'> & { patch: unknown })
  | (VerbOf<'delete' | 'deletecollection'> & RequestDeleteOptions)
  | (VerbOf<'update-scale'> & { raw: Buffer; mediaType: string });

export type DecodedWriteOf<K extends DecodedWrite['kind']> = Extract<DecodedWrite, { kind: K }>;

export async function decodeWrite(
  def: ResourceDef,
  verb: WriteVerb,
  req: IncomingMessage,
  query: URLSearchParams,
  ctx: RequestContext,
): Promise<DecodedWrite> {
  const raw = await readBody(req);
  const contentType = req.headers['content-type'];
  const decodeObject = (kind: string, validation?: BodyValidation): unknown => {
    try {
      return decodeBody(raw, contentType, OBJECT_BODY_TYPES, validation);
    } catch (e) {
      if (e instanceof UndecodableBody) throw unrecognizedObject(kind, e.message, raw);
      throw e;
    }
  };
  switch (verb.kind) {
    case 'create':
    case 'update':
      return { ...verb, object: decodeObject(def.kind, ctx) };
    case 'evict':
      return { ...verb, object: decodeObject('Eviction', ctx) };
    case 'bind':
      // A Binding's unknown protobuf fields are dropped without a warning.
      return { ...verb, binding: decodeObject('Binding') as JsonObject };
    case 'patch':
      return { ...verb, patch: decodePatch(raw, verb.patchType) };
    case 'delete':
    case 'deletecollection':
      return { ...verb, ...deleteOptions(def, raw, contentType, query) };
    case 'update-scale':
      return { ...verb, raw, mediaType: mediaType(contentType) };
  }
}
