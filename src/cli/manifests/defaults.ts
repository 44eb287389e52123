// Where `peerpods manifests` / `deploy` put the operator, apart from the layers' code so that
// registering the commands loads none of it.
export const DEFAULT_NAMESPACE = 'peerpods-system';
export const DEFAULT_IMAGE = 'ghcr.io/peerpods/peerpods:latest';
