// RoleBindings and ClusterRoleBindings; Roles and ClusterRoles have no printer in kube and use
// the default NAME / CREATED AT table.
import type { JsonObject } from '../../../../apimachinery/meta/index.ts';
import { AGE, col, NAME, wide } from '../columns.ts';
import { ageOf, asList, asObj, asStr, nameOf } from '../fields.ts';
import type { Printer } from '../types.ts';

function subjects(binding: JsonObject): [string, string, string] {
  const users: string[] = [];
  const groups: string[] = [];
  const serviceAccounts: string[] = [];
  for (const s of asList(binding.subjects)) {
    if (s.kind === 'ServiceAccount') serviceAccounts.push(`${asStr(s.namespace)}/${asStr(s.name)}`);
    else if (s.kind === 'User') users.push(asStr(s.name));
    else if (s.kind === 'Group') groups.push(asStr(s.name));
  }
  return [users.join(', '), groups.join(', '), serviceAccounts.join(', ')];
}

function bindingPrinter(what: string): Printer {
  return {
    columns: [
      NAME,
      col(
        'Role',
        'string',
        'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.',
      ),
      AGE,
      wide('Users', 'string', `Users in the ${what}`),
      wide('Groups', 'string', `Groups in the ${what}`),
      wide('ServiceAccounts', 'string', `ServiceAccounts in the ${what}`),
    ],
    cells(binding, now) {
      const ref = asObj(binding.roleRef);
      return [nameOf(binding), `${asStr(ref.kind)}/${asStr(ref.name)}`, ageOf(binding, now), ...subjects(binding)];
    },
  };
}

export const roleBindingPrinter = bindingPrinter('roleBinding');
export const clusterRoleBindingPrinter = bindingPrinter('clusterRoleBinding');
