// What `peerpods cluster start` runs for real: containers of this project's image (plus any
// `--local-image`) become processes of this checkout's CLI, the image's `peerpods` entrypoint.
import { fileURLToPath } from 'node:url';
import { DEFAULT_IMAGE } from '../manifests/defaults.ts';

/** This checkout's CLI, as the image's entrypoint runs it. */
/** This checkout: the image's own files, which process pods always see (no volume hides them). */
export const IMAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/+$/, '');
export const CLI_ENTRYPOINT = [process.execPath, fileURLToPath(new URL('../../../bin/peerpods.js', import.meta.url))];

/** The repository of the image `peerpods manifests` / `deploy` write (any tag runs as a process). */
export const OWN_IMAGE_REPOSITORY = DEFAULT_IMAGE.replace(/:[^/:]*$/, '');

export function processRuntimeOptions(
  stateDir: string,
  localImages: string[],
): {
  images: string[];
  entrypoint: string[];
  stateDir: string;
} {
  return { images: [OWN_IMAGE_REPOSITORY, ...localImages], entrypoint: [...CLI_ENTRYPOINT], stateDir };
}
