// Where the client connects and how it authenticates: kubeconfig (explicit file, KUBECONFIG,
// ~/.kube/config) or the in-cluster service account, in that order.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { isIPv6 } from 'node:net';
import { createRequire } from 'node:module';
import type { KubeConfig } from '@kubernetes/client-node';
import type * as ClientNode from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import type { Clock } from '../util/clock.ts';
import { KubeConfigAuth, TokenFileAuth, basicAuth, noAuth, staticTokenAuth, withImpersonation } from './auth.ts';
import type { AuthProvider } from './auth.ts';

const requireCjs = createRequire(import.meta.url);

/**
 * client-node's kubeconfig parser, loaded on first use: importing the package costs about a second
 * of startup, which an operator running in-cluster never needs.
 */
function newKubeConfig(): KubeConfig {
  const { KubeConfig: Parser } = requireCjs('@kubernetes/client-node') as typeof ClientNode;
  return new Parser();
}

export interface TlsConfig {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  /** false only with `insecure-skip-tls-verify: true`. */
  rejectUnauthorized: boolean;
  /** `tls-server-name`, when the certificate names another host than the URL. */
  servername?: string;
}

export interface ConnectionConfig {
  /** Base URL without a trailing slash, e.g. "https://127.0.0.1:6443". */
  server: string;
  tls: TlsConfig;
  auth: AuthProvider;
  /** The context's (or service account's) namespace; "default" when none is set. */
  namespace: string;
  source: 'kubeconfig' | 'in-cluster';
  /** The file(s) the kubeconfig came from, when it came from files. */
  kubeconfigPath?: string;
  context?: string;
}

/** Default service-account mount; `PEERPODS_SERVICEACCOUNT_DIR` overrides it (tests point it at temp files). */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface ConfigLoadOptions {
  /** Explicit kubeconfig file; wins over everything else. */
  kubeconfigPath?: string;
  /** Context to use instead of `current-context`. */
  context?: string;
  /** Skip kubeconfig discovery and use the service account. */
  inCluster?: boolean;
  /** Service-account directory (token, ca.crt, namespace). Default: `PEERPODS_SERVICEACCOUNT_DIR` or the standard mount. */
  serviceAccountDir?: string;
  /** How long a token read from a file is reused before re-reading (default 60 s); a 401 always re-reads. */
  tokenRefreshMs?: number;
  clock?: Clock;
}

/** Resolves the connection: explicit file > KUBECONFIG > in-cluster > ~/.kube/config. */
export function loadConnectionConfig(opts: ConfigLoadOptions = {}): ConnectionConfig {
  if (opts.inCluster) return inClusterConfig(opts);
  if (opts.kubeconfigPath) return configFromKubeconfigFiles([opts.kubeconfigPath], opts);
  const env = process.env.KUBECONFIG;
  if (env && env.length > 0) {
    const files = env.split(path.delimiter).filter((f) => f.length > 0);
    if (files.length > 0) return configFromKubeconfigFiles(files, opts);
  }
  // In a pod, the pod's own service account wins over a kubeconfig that happens to sit in the home
  // directory (controller-runtime's order: flag, KUBECONFIG, in-cluster, ~/.kube/config).
  if (process.env.KUBERNETES_SERVICE_HOST && existsSync(path.join(serviceAccountDir(opts), 'token'))) {
    return inClusterConfig(opts);
  }
  const home = process.env.HOME || homedir();
  const defaultPath = home ? path.join(home, '.kube', 'config') : undefined;
  if (defaultPath && existsSync(defaultPath)) return configFromKubeconfigFiles([defaultPath], opts);
  throw new Error(
    'no Kubernetes configuration found: give a kubeconfig file (--kubeconfig), set KUBECONFIG, create ' +
      '~/.kube/config, or run in a pod with a service account (KUBERNETES_SERVICE_HOST and a token file)',
  );
}

function serviceAccountDir(opts: ConfigLoadOptions): string {
  return opts.serviceAccountDir ?? process.env.PEERPODS_SERVICEACCOUNT_DIR ?? SERVICE_ACCOUNT_DIR;
}

/** The in-cluster service account: `KUBERNETES_SERVICE_HOST/PORT`, the CA, and a token file re-read on rotation. */
export function inClusterConfig(opts: ConfigLoadOptions = {}): ConnectionConfig {
  const host = process.env.KUBERNETES_SERVICE_HOST;
  const port = process.env.KUBERNETES_SERVICE_PORT || '443';
  if (!host) throw new Error('in-cluster configuration needs KUBERNETES_SERVICE_HOST (not running in a pod?)');
  const dir = serviceAccountDir(opts);
  const tokenPath = path.join(dir, 'token');
  if (!existsSync(tokenPath))
    throw new Error(`in-cluster configuration: service-account token ${tokenPath} is missing`);
  const caPath = path.join(dir, 'ca.crt');
  const nsPath = path.join(dir, 'namespace');
  const namespace = existsSync(nsPath) ? readFileSync(nsPath, 'utf8').trim() : '';
  const tokenOpts = {
    ...(opts.tokenRefreshMs !== undefined ? { refreshMs: opts.tokenRefreshMs } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
  };
  return {
    server: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`,
    tls: { rejectUnauthorized: true, ...(existsSync(caPath) ? { ca: readFileSync(caPath) } : {}) },
    auth: new TokenFileAuth(tokenPath, tokenOpts),
    namespace: namespace || 'default',
    source: 'in-cluster',
  };
}

/** Loads one kubeconfig, or several merged like kubectl (the first file's current-context and entries win). */
export function configFromKubeconfigFiles(files: string[], opts: ConfigLoadOptions = {}): ConnectionConfig {
  const first = files[0];
  if (!first) throw new Error('no kubeconfig file given');
  const kc = newKubeConfig();
  const raws: RawKubeconfig[] = [];
  for (const [i, file] of files.entries()) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      // kubectl ignores missing entries in a KUBECONFIG list, but not an explicit single file.
      if (files.length > 1) continue;
      throw new Error(`cannot read kubeconfig ${file}: ${(e as Error).message}`);
    }
    const part = newKubeConfig();
    try {
      part.loadFromString(text);
    } catch (e) {
      // The parser's message says what is wrong, not where: name the file.
      throw new Error(`cannot load kubeconfig ${file}: ${(e as Error).message}`);
    }
    part.makePathsAbsolute(path.dirname(file));
    raws.push(rawKubeconfig(text, path.dirname(file)));
    if (i === 0) {
      kc.loadFromOptions({
        clusters: part.getClusters(),
        users: part.getUsers(),
        contexts: part.getContexts(),
        currentContext: part.getCurrentContext(),
      });
    } else {
      mergeFirstWins(kc, part);
    }
  }
  return fromKubeConfig(kc, raws, { ...opts, kubeconfigPath: files.join(path.delimiter) });
}

export function configFromKubeconfigString(text: string, opts: ConfigLoadOptions = {}): ConnectionConfig {
  const kc = newKubeConfig();
  kc.loadFromString(text);
  return fromKubeConfig(kc, [rawKubeconfig(text, undefined)], opts);
}

function mergeFirstWins(into: KubeConfig, from: KubeConfig): void {
  const has = (list: { name: string }[], name: string): boolean => list.some((x) => x.name === name);
  for (const c of from.getClusters()) if (!has(into.getClusters(), c.name)) into.addCluster(c);
  for (const u of from.getUsers()) if (!has(into.getUsers(), u.name)) into.addUser(u);
  for (const x of from.getContexts()) if (!has(into.getContexts(), x.name)) into.addContext(x);
  if (!into.getCurrentContext() && from.getCurrentContext()) into.setCurrentContext(from.getCurrentContext());
}

/** Fields client-node does not parse (`tokenFile`), read from the YAML ourselves. */
interface RawKubeconfig {
  tokenFiles: Map<string, string>;
}

function rawKubeconfig(text: string, dir: string | undefined): RawKubeconfig {
  const tokenFiles = new Map<string, string>();
  try {
    const doc = parseYaml(text) as { users?: { name?: string; user?: { tokenFile?: string } }[] } | null;
    for (const u of doc?.users ?? []) {
      const tf = u.user?.tokenFile;
      if (u.name && typeof tf === 'string' && tf.length > 0) {
        tokenFiles.set(u.name, dir && !path.isAbsolute(tf) ? path.join(dir, tf) : tf);
      }
    }
  } catch {
    // client-node already parsed it successfully; a failure here only loses tokenFile support.
  }
  return { tokenFiles };
}

function fromKubeConfig(kc: KubeConfig, raws: RawKubeconfig[], opts: ConfigLoadOptions): ConnectionConfig {
  if (opts.context) {
    if (!kc.getContextObject(opts.context)) {
      const where = opts.kubeconfigPath ? `kubeconfig ${opts.kubeconfigPath}` : 'the kubeconfig';
      throw new Error(`${where} has no context "${opts.context}"`);
    }
    kc.setCurrentContext(opts.context);
  }
  const contextName = kc.getCurrentContext();
  const context = contextName ? kc.getContextObject(contextName) : null;
  if (!context) {
    const where = opts.kubeconfigPath ? `kubeconfig ${opts.kubeconfigPath}` : 'the kubeconfig';
    throw new Error(
      contextName
        ? `${where}: current-context "${contextName}" is not one of its contexts`
        : `${where} has no current-context: set one with \`kubectl config use-context NAME\``,
    );
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error(`kubeconfig context "${contextName}" names an unknown cluster "${context.cluster}"`);
  const user = kc.getCurrentUser();

  if (cluster.server.startsWith('http:') && !cluster.skipTLSVerify) {
    // Plain HTTP sends the token in the clear; make that an explicit choice, as client-node does.
    throw new Error(`refusing plain HTTP server ${cluster.server} without insecure-skip-tls-verify: true`);
  }
  const tls: TlsConfig = { rejectUnauthorized: !cluster.skipTLSVerify };
  const ca = fileOrData(cluster.caFile, cluster.caData);
  if (ca) tls.ca = ca;
  if (cluster.tlsServerName) tls.servername = cluster.tlsServerName;
  const cert = fileOrData(user?.certFile, user?.certData);
  const key = fileOrData(user?.keyFile, user?.keyData);
  if (cert) tls.cert = cert;
  if (key) tls.key = key;

  let auth: AuthProvider = noAuth;
  const tokenFile = user ? raws.map((r) => r.tokenFiles.get(user.name)).find((x) => x !== undefined) : undefined;
  if (user?.token) auth = staticTokenAuth(user.token);
  else if (tokenFile) {
    auth = new TokenFileAuth(tokenFile, {
      ...(opts.tokenRefreshMs !== undefined ? { refreshMs: opts.tokenRefreshMs } : {}),
      ...(opts.clock ? { clock: opts.clock } : {}),
    });
  } else if (user?.username) auth = basicAuth(user.username, user.password ?? '');
  else if (user?.exec || user?.authProvider) auth = new KubeConfigAuth(kc);
  if (user?.impersonateUser) auth = withImpersonation(auth, user.impersonateUser);

  return {
    server: cluster.server.replace(/\/+$/, ''),
    tls,
    auth,
    namespace: context.namespace || 'default',
    source: 'kubeconfig',
    context: contextName,
    ...(opts.kubeconfigPath ? { kubeconfigPath: opts.kubeconfigPath } : {}),
  };
}

function fileOrData(file: string | undefined | null, data: string | undefined | null): Buffer | undefined {
  if (file) return readFileSync(file);
  if (data) return Buffer.from(data, 'base64');
  return undefined;
}
