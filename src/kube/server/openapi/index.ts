// OpenAPI for the embedded apiserver: /openapi/v3 and /openapi/v2 (gnostic protobuf for kubectl,
// JSON otherwise) describing every served kind, built-in and custom, kept current as CRDs change.
import type { ControlPlaneInternals } from '../../control-plane.ts';
import { OpenApiDocuments } from './documents.ts';
import { openApiRoute } from './routes.ts';

export { OpenApiDocuments } from './documents.ts';
export { PROTO_V2_CONTENT_TYPE, openApiRoute } from './routes.ts';

/** Serves the OpenAPI endpoints from a started control plane; returns the document cache. */
export function installOpenApi(
  internals: Pick<ControlPlaneInternals, 'catalog' | 'storage' | 'addRoute'>,
): OpenApiDocuments {
  const docs = new OpenApiDocuments(internals.catalog, internals.storage);
  internals.addRoute(openApiRoute(docs));
  return docs;
}
