// Reads a write's body once and decodes it the way its verb takes it: an object (JSON, YAML or
// protobuf), a patch (JSON or apply YAML), DeleteOptions, or the raw bytes the scale
// subresource decodes itself.
import type { IncomingMessage } from 'node:http';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { RequestContext } from '../../registry/context.ts';
import type { DeleteOptions } from '../../registry/store/index.ts';
import { decodeBody, decodePatch, mediaType, OBJECT_BODY_TYPES, readBody } from '../request.ts';
import { deleteOptions } from './delete-options.ts';
import type { WriteVerb } from './resolve.ts';

type VerbOf<K extends WriteVerb['kind']> = Extract<WriteVerb, { kind: K }>;

/** A write verb with its decoded body. */
export type DecodedWrite =
  | (VerbOf<'create' | 'update' | 'evict'> & { object: unknown })
  | (VerbOf<'bind'> & { binding: JsonObject })
  | (VerbOf<'patch'> & { patch: unknown })
  | (VerbOf<'delete' | 'deletecollection'> & { options: DeleteOptions })
  | (VerbOf<'update-scale'> & { raw: Buffer; mediaType: string });

export type DecodedWriteOf<K extends DecodedWrite['kind']> = Extract<DecodedWrite, { kind: K }>;

export async function decodeWrite(
  verb: WriteVerb,
  req: IncomingMessage,
  query: URLSearchParams,
  ctx: RequestContext,
): Promise<DecodedWrite> {
  const raw = await readBody(req);
  const contentType = req.headers['content-type'];
  switch (verb.kind) {
    case 'create':
    case 'update':
    case 'evict':
      return { ...verb, object: decodeBody(raw, contentType, OBJECT_BODY_TYPES, ctx) };
    case 'bind':
      // A Binding's unknown protobuf fields are dropped without a warning.
      return { ...verb, binding: decodeBody(raw, contentType, OBJECT_BODY_TYPES) as JsonObject };
    case 'patch':
      return { ...verb, patch: decodePatch(raw, verb.patchType) };
    case 'delete':
    case 'deletecollection':
      return { ...verb, options: deleteOptions(raw, contentType, query) };
    case 'update-scale':
      return { ...verb, raw, mediaType: mediaType(contentType) };
  }
}
