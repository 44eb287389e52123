// The 409 an apply gets when it would change fields other managers own. Message and causes are
// kube-apiserver's, byte for byte: kubectl prints the message, and controllers read the causes.
//   Apply failed with 1 conflict: conflict with "mgr" using v1: .data.x
//   Apply failed with 2 conflicts: conflicts with "a":\n- .data.x\nconflicts with "b" using v1:\n- .data.y
import type { StatusCause } from '../../../apimachinery/meta/index.ts';
import type { Path } from './path.ts';
import type { ManagerId } from './managers.ts';
import { StatusError } from '../../../apimachinery/errors/index.ts';
import { pathToString } from './path.ts';
import { identifier, printManager } from './managers.ts';

export interface Conflict {
  id: ManagerId;
  path: Path;
}

/** Groups by manager identity in kube's order (sorted identifiers); paths keep their set order. */
export function sortConflicts(conflicts: Conflict[]): Conflict[] {
  return conflicts
    .map((c, i) => ({ c, i, key: identifier(c.id) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.i - b.i))
    .map(({ c }) => c);
}

export function applyConflictError(unsorted: Conflict[]): StatusError {
  const conflicts = sortConflicts(unsorted);
  const causes: StatusCause[] = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.id)}`,
    field: pathToString(c.path),
  }));
  return new StatusError(409, 'Conflict', conflictMessage(conflicts), { causes });
}

function conflictMessage(conflicts: Conflict[]): string {
  if (conflicts.length === 1) {
    const [c] = conflicts;
    return `Apply failed with 1 conflict: conflict with ${printManager(c.id)}: ${pathToString(c.path)}`;
  }
  const lines: string[] = [];
  let last: string | undefined;
  for (const c of conflicts) {
    const key = identifier(c.id);
    if (key !== last) lines.push(`conflicts with ${printManager(c.id)}:`);
    last = key;
    lines.push(`- ${pathToString(c.path)}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}
