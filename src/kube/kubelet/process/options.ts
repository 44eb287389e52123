// Which containers the process runtime runs, and with what command line.
//
// The project's image has `peerpods` as its entrypoint, so a container of that image runs here as
// `entrypoint + args` (no command), `entrypoint + command[1..] + args` (command `peerpods` or
// `/usr/local/bin/peerpods`), or as its own command looked up on this machine's PATH (anything
// else, e.g. `sh -c 'exit 1'`).
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { ContainerConfigSource } from './container-config.ts';
import { expand, mappingFuncFor } from './expansion.ts';

export interface ProcessRuntimeOptions {
  /**
   * Images that run as processes: an entry matches the image as written or its repository (the
   * image without `:tag` / `@digest`), e.g. `ghcr.io/peerpods/peerpods`.
   */
  images: string[];
  /** The command line that stands for the image's `peerpods` entrypoint, e.g. [node, bin/peerpods.js]. */
  entrypoint: string[];
  /** Where pod directories are made (volumes, the container view). Default: a fresh temporary directory. */
  stateDir?: string;
  /** Captured output kept per container instance; the oldest lines go first. Default 10 MiB. */
  logLimitBytes?: number;
  /** How long cluster stop waits after SIGTERM before SIGKILL. Default 2 s. */
  stopGraceMs?: number;
  /**
   * Resolves env and volumes of each container; the control plane supplies the API-backed one.
   * Without it, containers get their literal `env[].value`s only.
   */
  configSource?: ContainerConfigSource;
}

export const DEFAULT_LOG_LIMIT_BYTES = 10 * 1024 * 1024;

/** The image's repository: without `@digest`, and without a `:tag` after the last `/`. */
export function imageRepository(image: string): string {
  const noDigest = image.split('@')[0];
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  return colon > slash ? noDigest.slice(0, colon) : noDigest;
}

export function isProcessImage(image: unknown, images: readonly string[]): boolean {
  if (typeof image !== 'string' || image === '') return false;
  const repo = imageRepository(image);
  return images.some((i) => i === image || i === repo);
}

const ENTRYPOINT_NAMES = new Set(['peerpods', '/usr/local/bin/peerpods']);

/** The argv a command line (`command` + `args`, or an exec request) becomes on this machine. */
export function hostArgv(
  entrypoint: readonly string[],
  command: readonly string[],
  args: readonly string[] = [],
): string[] {
  if (command.length === 0) return [...entrypoint, ...args];
  if (ENTRYPOINT_NAMES.has(command[0])) return [...entrypoint, ...command.slice(1), ...args];
  return [...command, ...args];
}

export function containerArgv(
  entrypoint: readonly string[],
  container: JsonObject,
  env: Record<string, string>,
): string[] {
  // kubecontainer.ExpandContainerCommandAndArgs: the same expansion as env values.
  const mapping = mappingFuncFor(env);
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => expand(String(x), mapping)) : []);
  return hostArgv(entrypoint, strings(container.command), strings(container.args));
}
