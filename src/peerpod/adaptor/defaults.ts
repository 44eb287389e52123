// The node-side adaptor's defaults that `peerpods --help` shows, apart from its code.
export const DEFAULT_RUNTIME_CLASS = 'kata-remote';
export const DEFAULT_CONFIGMAP = 'peer-pods-cm';
export const DEFAULT_SECRET = 'peer-pods-secret';
/** VM creates take seconds to minutes; one worker per pod in flight keeps a node's pods from queueing. */
export const DEFAULT_MAX_CONCURRENT_RECONCILES = 16;
