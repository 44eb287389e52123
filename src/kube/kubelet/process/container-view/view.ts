// The launcher's half of the container view: it writes what the preload shim (shim.mjs) needs —
// mounts, pod IP, working directory — to a file and returns the environment that loads the shim.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ContainerConfig } from '../container-config.ts';

/** Where the shim finds its view file. */
export const CONTAINER_VIEW_ENV = 'PEERPODS_CONTAINER_VIEW';

export const SHIM_URL = new URL('./shim.mjs', import.meta.url).href;

/**
 * Writes `<viewDir>/container-view.json` (viewDir, created if need be, belongs to one container) and returns
 * the variables to add to `config.env` when starting the process: NODE_OPTIONS with the shim's
 * `--import` after the container's own options, and PEERPODS_CONTAINER_VIEW.
 */
export function containerViewEnv(config: ContainerConfig, podIP: string, viewDir: string): Record<string, string> {
  mkdirSync(viewDir, { recursive: true });
  const file = join(viewDir, 'container-view.json');
  const view = { podIP, mounts: config.mounts, ...(config.workingDir ? { workingDir: config.workingDir } : {}) };
  writeFileSync(file, `${JSON.stringify(view, null, 2)}\n`);
  const own = config.env.NODE_OPTIONS?.trim();
  return {
    NODE_OPTIONS: own ? `${own} --import ${SHIM_URL}` : `--import ${SHIM_URL}`,
    [CONTAINER_VIEW_ENV]: file,
  };
}
