// The kubelet's token manager for one pod (pkg/kubelet/token/token_manager.go): one token per
// (audience, expirationSeconds) of its serviceAccountToken projections, bound to the pod and
// reused until 80 % of its life has passed (or it is a day old), then replaced.
import type { JsonObject } from '../../../../apimachinery/meta/index.ts';
import { StatusError } from '../../../../apimachinery/errors/index.ts';
import type { PodTokenSource } from '../../../auth/tokens/index.ts';
import type { IssuedToken } from '../../../auth/tokens/issuer.ts';
import { ContainerConfigError } from '../container-config.ts';

/** token_manager.go maxTTL: a token older than this is replaced whatever its expiry. */
const MAX_TTL_MS = 24 * 60 * 60 * 1000;
/** A projection without expirationSeconds: the API's default (pkg/apis/core/v1/defaults.go). */
const DEFAULT_EXPIRATION_SECONDS = 3600;

/** When the kubelet replaces a token: within 20 % of its TTL of expiry, or after a day. */
function refreshAt(t: IssuedToken): number {
  const ttl = t.expiresAt - t.issuedAt;
  return Math.min(t.expiresAt - ttl * 0.2, t.issuedAt + MAX_TTL_MS);
}

export class PodTokens {
  private readonly tokens = new Map<string, IssuedToken>();

  constructor(
    private readonly source: PodTokenSource,
    private readonly pod: JsonObject,
  ) {}

  /** The token a serviceAccountToken projection source writes. */
  token(projection: JsonObject): string {
    const audience = typeof projection.audience === 'string' ? projection.audience : '';
    const seconds =
      typeof projection.expirationSeconds === 'number' ? projection.expirationSeconds : DEFAULT_EXPIRATION_SECONDS;
    const key = `${audience}/${seconds}`;
    const cached = this.tokens.get(key);
    if (cached && this.source.now() < refreshAt(cached)) return cached.token;
    let issued: IssuedToken;
    try {
      issued = this.source.podToken(this.pod, audience ? [audience] : undefined, seconds);
    } catch (e) {
      // The kubelet cannot mount the volume until the account exists (it retries).
      if (e instanceof StatusError) throw new ContainerConfigError(`failed to fetch token: ${e.message}`);
      throw e;
    }
    this.tokens.set(key, issued);
    return issued.token;
  }

  /** Epoch ms (the token source's clock) when the first token is due for replacement. */
  nextRefreshAt(): number | undefined {
    let next: number | undefined;
    for (const t of this.tokens.values()) next = Math.min(next ?? Infinity, refreshAt(t));
    return next;
  }

  now(): number {
    return this.source.now();
  }
}
