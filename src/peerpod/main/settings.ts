// Names and defaults of the local peer-pods stack (`peerpods start`, `peerpods demo`), and the
// choice between the qemu and simulated providers.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_CONFIGMAP, DEFAULT_SECRET } from '../controllers/index.ts';
import { DEFAULT_EXTENDED_RESOURCE } from '../webhook/index.ts';

const run = promisify(execFile);

/** The operator namespace ($PEERPODS_NAMESPACE): settings, webhook objects, the sample config. */
export const STACK_NAMESPACE = 'peerpods-system';
export const RUNTIME_CLASS = 'kata-remote';
export const SAMPLE_CONFIG_NAME = 'peerpodconfig-sample';
/** Cluster-wide pod VMs in the sample PeerPodConfig, spread over the nodes. */
export const SAMPLE_LIMIT = 4;
export const QEMU_BINARY = 'qemu-system-x86_64';
export const QEMU_INSTALL_HINT = 'apt-get install qemu-system-x86';

export const STACK_PROVIDERS = ['qemu', 'simulated'] as const;
export type StackProviderName = (typeof STACK_PROVIDERS)[number];

export interface ProviderChoice {
  name: StackProviderName;
  /** One line for the banner: why this provider. */
  reason: string;
  /** Set when qemu was wanted or would have been picked but cannot run. */
  installHint?: string;
  /** Also run the simulated provider beside qemu, behind its own RuntimeClass (SIM_RUNTIME_CLASS). */
  withSimulated?: boolean;
}

/** What `--provider` asks for: one provider, or qemu and simulated side by side. */
export type ProviderWish = StackProviderName | 'both';

/** The RuntimeClass of the simulated provider when it runs beside qemu. */
export const SIM_RUNTIME_CLASS = 'kata-remote-sim';

/**
 * One provider of the stack and everything bound to it: the first is today's single-provider
 * config (RuntimeClass kata-remote, kata.peerpods.io/vm, peer-pods-cm/peer-pods-secret); the
 * simulated provider beside qemu gets its own RuntimeClass, node resource, config, ConfigMap and Secret.
 */
export interface StackBinding {
  provider: StackProviderName;
  runtimeClassName: string;
  extendedResource: string;
  configName: string;
  configMap: string;
  secret: string;
  /** The settings written to its ConfigMap. */
  providerConfig: Record<string, string>;
  /** The first binding: its PeerPodConfig names no binding fields (the defaults). */
  primary: boolean;
}

/** The bindings of `providers` (the first is the primary one), their state under `stateDir`. */
export function stackBindings(providers: readonly StackProviderName[], stateDir: string): StackBinding[] {
  return providers.map((provider, i) =>
    i === 0
      ? {
          provider,
          runtimeClassName: RUNTIME_CLASS,
          extendedResource: DEFAULT_EXTENDED_RESOURCE,
          configName: SAMPLE_CONFIG_NAME,
          configMap: DEFAULT_CONFIGMAP,
          secret: DEFAULT_SECRET,
          providerConfig: providerConfigFor(provider, stateDir),
          primary: true,
        }
      : {
          provider,
          runtimeClassName: provider === 'simulated' ? SIM_RUNTIME_CLASS : `${RUNTIME_CLASS}-${provider}`,
          extendedResource: `${provider}.${DEFAULT_EXTENDED_RESOURCE}`,
          configName: `peerpodconfig-${provider}`,
          configMap: `peer-pods-cm-${provider}`,
          secret: `peer-pods-secret-${provider}`,
          providerConfig: providerConfigFor(provider, stateDir),
          primary: false,
        },
  );
}

/** The providers a choice runs, the primary first. */
export function choiceProviders(c: Pick<ProviderChoice, 'name' | 'withSimulated'>): StackProviderName[] {
  return c.withSimulated && c.name !== 'simulated' ? [c.name, 'simulated'] : [c.name];
}

/** Whether `qemu-system-x86_64 --version` runs; the message says why not. */
export async function qemuAvailable(binary = QEMU_BINARY): Promise<{ ok: boolean; detail: string }> {
  try {
    const { stdout } = await run(binary, ['--version'], { timeout: 10_000 });
    return { ok: true, detail: stdout.split('\n')[0].trim() };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return { ok: false, detail: e.code === 'ENOENT' ? `${binary} is not installed` : e.message.split('\n')[0] };
  }
}

/**
 * qemu when it runs here, simulated otherwise; an explicit `wanted` wins (qemu must then run).
 * `sideBySide`: with qemu also the simulated provider (`peerpods start`'s default, `--provider both`).
 */
export async function chooseProvider(wanted?: ProviderWish, sideBySide = false): Promise<ProviderChoice> {
  const installHint = `install QEMU for real VMs: ${QEMU_INSTALL_HINT} (Debian/Ubuntu)`;
  if (wanted === 'simulated') return { name: 'simulated', reason: 'asked for with --provider simulated' };
  const q = await qemuAvailable();
  const both = wanted === 'both' || (wanted === undefined && sideBySide);
  if (q.ok) {
    return {
      name: 'qemu',
      reason: wanted
        ? `asked for with --provider ${wanted} (${q.detail})`
        : `${QEMU_BINARY} is installed (${q.detail})`,
      ...(both ? { withSimulated: true } : {}),
    };
  }
  if (wanted === 'qemu' || wanted === 'both') throw new Error(`--provider ${wanted}: ${q.detail}; ${installHint}`);
  return {
    name: 'simulated',
    reason: `${q.detail}; VMs are simulated (records under the state directory)`,
    installHint,
  };
}

/** Where a provider of the stack keeps its VMs under the stack's state directory. */
export function providerStateDir(name: StackProviderName, stateDir: string): string {
  return path.join(stateDir, name);
}

/** The provider settings written to peer-pods-cm: everything under the stack's state directory. */
export function providerConfigFor(name: StackProviderName, stateDir: string): Record<string, string> {
  const config: Record<string, string> = { CLOUD_PROVIDER: name };
  if (name === 'qemu') {
    config.QEMU_STATE_DIR = providerStateDir(name, stateDir);
    config.QEMU_DEFAULT_VCPUS = '1';
    config.QEMU_DEFAULT_MEMORY = '128';
  } else {
    // A few ms per call so the summary shows VMs come and go as a cloud would, without slowing tests.
    config.SIMULATED_LATENCY_MS = '20';
    // The adaptor pods, the PeerPod controller pod and the CLI are separate processes: one cloud.
    config.SIMULATED_STATE_DIR = providerStateDir(name, stateDir);
  }
  return config;
}
