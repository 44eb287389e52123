// peerpods/runtime client: configuration, typed CRUD/patch/watch, typed errors.
export * from './types.ts';
export * from './errors.ts';
export { KubeClient, WatchStreamError } from './client.ts';
export type { ClientOptions, LoadOptions, RawResponse } from './client.ts';
export {
  loadConnectionConfig,
  inClusterConfig,
  configFromKubeconfigFiles,
  configFromKubeconfigString,
  SERVICE_ACCOUNT_DIR,
} from './config.ts';
export type { ConfigLoadOptions, ConnectionConfig, TlsConfig } from './config.ts';
export { TokenFileAuth, KubeConfigAuth, staticTokenAuth, basicAuth, noAuth, withImpersonation } from './auth.ts';
export type { AuthProvider, TokenFileAuthOptions } from './auth.ts';
export { TokenBucket } from './rate-limit.ts';
export type { RateLimit } from './rate-limit.ts';
export { NetworkError, RequestTimeoutError } from './transport.ts';
export { MalformedWatchEventError, parseWatchLine, decodeWatchStream } from './watch-stream.ts';
export { resourcePath, groupVersionPath, withQuery } from './paths.ts';
export { defaultMetricsRegistry, clientMetrics } from './metrics.ts';
export type { ClientMetrics } from './metrics.ts';
