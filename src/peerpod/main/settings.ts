// Names and defaults of the local peer-pods stack (`peerpods start`, `peerpods demo`), and the
// choice between the qemu and simulated providers.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

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

/** qemu when it runs here, simulated otherwise; an explicit `wanted` wins (qemu must then run). */
export async function chooseProvider(wanted?: StackProviderName): Promise<ProviderChoice> {
  const installHint = `install QEMU for real VMs: ${QEMU_INSTALL_HINT} (Debian/Ubuntu)`;
  if (wanted === 'simulated') return { name: 'simulated', reason: 'asked for with --provider simulated' };
  const q = await qemuAvailable();
  if (q.ok) {
    return {
      name: 'qemu',
      reason: wanted ? `asked for with --provider qemu (${q.detail})` : `${QEMU_BINARY} is installed (${q.detail})`,
    };
  }
  if (wanted === 'qemu') throw new Error(`--provider qemu: ${q.detail}; ${installHint}`);
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
