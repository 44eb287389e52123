// Credentials for requests. Each provider yields the headers for the next request and may be asked
// to refresh after a 401, which is how rotated service-account tokens are picked up without a restart.
import { readFile } from 'node:fs/promises';
import type { KubeConfig } from '@kubernetes/client-node';
import { realClock } from '../util/clock.ts';
import type { Clock } from '../util/clock.ts';

export interface AuthProvider {
  /** Headers for the next request (usually `Authorization`). */
  headers(): Promise<Record<string, string>>;
  /** After a 401: re-read credentials; true when they changed and a retry may succeed. */
  refresh?(): Promise<boolean>;
  /** For logs; never contains secret material. */
  readonly description: string;
}

export const noAuth: AuthProvider = {
  headers: async () => ({}),
  description: 'none',
};

export function staticTokenAuth(token: string): AuthProvider {
  const header = { authorization: `Bearer ${token.trim()}` };
  return { headers: async () => header, description: 'bearer token' };
}

export function basicAuth(username: string, password: string): AuthProvider {
  const header = { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` };
  return { headers: async () => header, description: `basic (${username})` };
}

export interface TokenFileAuthOptions {
  /**
   * How long a read token is trusted before the file is read again. Default 60 s, as client-go does for
   * projected service-account tokens (the kubelet rotates them well before expiry).
   */
  refreshMs?: number;
  clock?: Clock;
}

/** A bearer token read from a file that may be rewritten at any time (projected service-account token). */
export class TokenFileAuth implements AuthProvider {
  readonly description: string;
  private token: string | undefined;
  private readAt = -Infinity;
  private readonly refreshMs: number;
  private readonly clock: Clock;

  constructor(
    readonly path: string,
    opts: TokenFileAuthOptions = {},
  ) {
    this.description = `token file ${path}`;
    this.refreshMs = opts.refreshMs ?? 60_000;
    this.clock = opts.clock ?? realClock;
  }

  async headers(): Promise<Record<string, string>> {
    if (this.token === undefined || this.clock.now() - this.readAt >= this.refreshMs) await this.read();
    return this.token ? { authorization: `Bearer ${this.token}` } : {};
  }

  async refresh(): Promise<boolean> {
    const before = this.token;
    await this.read();
    return this.token !== before;
  }

  private async read(): Promise<void> {
    try {
      this.token = (await readFile(this.path, 'utf8')).trim();
      this.readAt = this.clock.now();
    } catch (e) {
      // A token that vanished mid-rotation: keep the old one until the file is back.
      if (this.token === undefined) throw new Error(`cannot read token file ${this.path}: ${(e as Error).message}`);
    }
  }
}

/**
 * Delegates to @kubernetes/client-node for the auth schemes we do not implement ourselves
 * (exec plugins, OIDC and other auth-provider entries). It caches exec credentials until they expire.
 */
export class KubeConfigAuth implements AuthProvider {
  readonly description: string;

  constructor(private readonly kc: KubeConfig) {
    const user = kc.getCurrentUser();
    this.description = user?.exec ? `exec (${String(user.exec.command)})` : `auth-provider (${user?.name ?? '?'})`;
  }

  async headers(): Promise<Record<string, string>> {
    const opts: { headers?: Record<string, string> } = { headers: {} };
    // The https options it fills also carry a fresh agent and TLS material; we keep only the headers
    // because our keep-alive agent is built once per client.
    await this.kc.applyToHTTPSOptions(opts);
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers ?? {})) {
      if (typeof v === 'string') out[k.toLowerCase()] = v;
    }
    return out;
  }
}

/** Adds impersonation (`as` in kubeconfig) on top of another provider. */
export function withImpersonation(inner: AuthProvider, user: string): AuthProvider {
  return {
    headers: async () => ({ ...(await inner.headers()), 'impersonate-user': user }),
    ...(inner.refresh ? { refresh: () => inner.refresh!() } : {}),
    description: `${inner.description} as ${user}`,
  };
}
