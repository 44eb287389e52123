// The ClusterRoles (and their bindings) every identity gets: discovery, self-reviews, the public
// health/version paths (also to anonymous requests), and service-account issuer discovery
// (kubernetes/kubernetes:plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go,
// testdata/cluster-roles.yaml, testdata/cluster-role-bindings.yaml).
import type { JsonObject } from '../../../../apimachinery/meta/index.ts';
import { SYSTEM_AUTHENTICATED, SYSTEM_MASTERS, SYSTEM_UNAUTHENTICATED } from '../../user.ts';
import { clusterRole, clusterRoleBindingToGroups, rule, urlRule } from './objects.ts';

const SYSTEM_SERVICE_ACCOUNTS = 'system:serviceaccounts';

export function discoveryClusterRoles(): JsonObject[] {
  return [
    clusterRole({
      name: 'system:discovery',
      rules: [
        urlRule(
          [
            '/api',
            '/api/*',
            '/apis',
            '/apis/*',
            '/healthz',
            '/livez',
            '/openapi',
            '/openapi/*',
            '/readyz',
            '/version',
            '/version/',
          ],
          ['get'],
        ),
      ],
    }),
    clusterRole({
      name: 'system:basic-user',
      rules: [
        rule(['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], ['create']),
        rule(['authentication.k8s.io'], ['selfsubjectreviews'], ['create']),
      ],
    }),
    clusterRole({
      name: 'system:public-info-viewer',
      rules: [urlRule(['/healthz', '/livez', '/readyz', '/version', '/version/'], ['get'])],
    }),
    clusterRole({
      name: 'system:service-account-issuer-discovery',
      rules: [
        urlRule(
          [
            '/.well-known/openid-configuration',
            '/.well-known/openid-configuration/',
            '/openid/v1/jwks',
            '/openid/v1/jwks/',
          ],
          ['get'],
        ),
      ],
    }),
  ];
}

export function bootstrapClusterRoleBindings(): JsonObject[] {
  return [
    clusterRoleBindingToGroups('cluster-admin', [SYSTEM_MASTERS]),
    clusterRoleBindingToGroups('system:discovery', [SYSTEM_AUTHENTICATED]),
    clusterRoleBindingToGroups('system:basic-user', [SYSTEM_AUTHENTICATED]),
    clusterRoleBindingToGroups('system:public-info-viewer', [SYSTEM_AUTHENTICATED, SYSTEM_UNAUTHENTICATED]),
    clusterRoleBindingToGroups('system:service-account-issuer-discovery', [SYSTEM_SERVICE_ACCOUNTS]),
  ];
}
