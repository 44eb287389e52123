// The admission plugins kube-apiserver leaves off unless --enable-admission-plugins names them.
// The ones it runs by default are always on here; a name this server does not implement is
// refused at start rather than silently ignored.
export { OWNER_REFERENCES_PERMISSION_ENFORCEMENT, OwnerReferencesPermissionEnforcement } from './owner-references.ts';
export type { OwnerKinds } from './owner-references.ts';
import { OWNER_REFERENCES_PERMISSION_ENFORCEMENT } from './owner-references.ts';

const OPTIONAL_PLUGINS: readonly string[] = [OWNER_REFERENCES_PERMISSION_ENFORCEMENT];

/** The set of enabled optional plugins; throws for names it does not know, as kube-apiserver's flag validation. */
export function enabledAdmissionPlugins(names: readonly string[] = []): Set<string> {
  const unknown = names.filter((n) => !OPTIONAL_PLUGINS.includes(n));
  if (unknown.length > 0) {
    throw new Error(unknown.map((n) => `enable-admission-plugins plugin "${n}" is unknown`).join(', '));
  }
  return new Set(names);
}
