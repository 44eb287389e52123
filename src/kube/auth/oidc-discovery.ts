// Service account issuer discovery (pkg/serviceaccount/openidmetadata.go): the OpenID provider
// configuration and the key set, so other parties can verify the cluster's tokens themselves.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { publicJwk } from './tokens/keys.ts';
import type { TokenIssuer } from './tokens/issuer.ts';

export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';

function send(res: ServerResponse, contentType: string, body: object): void {
  const text = JSON.stringify(body);
  res.writeHead(200, {
    'Content-Type': contentType,
    'Cache-Control': 'public, max-age=3600',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** A server route answering both paths (for GET). */
export function issuerDiscoveryRoute(issuer: TokenIssuer) {
  return (req: IncomingMessage, res: ServerResponse, path: string): boolean => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    if (path === OPENID_CONFIGURATION_PATH) {
      // Without --service-account-jwks-uri the key set is named under the issuer URL.
      send(res, 'application/json', {
        issuer: issuer.issuer,
        jwks_uri: `${issuer.issuer}${JWKS_PATH}`,
        response_types_supported: ['id_token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
      });
      return true;
    }
    if (path === JWKS_PATH) {
      send(res, 'application/jwk-set+json', { keys: [publicJwk(issuer.key)] });
      return true;
    }
    return false;
  };
}
