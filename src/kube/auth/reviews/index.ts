// The authorization.k8s.io/v1 reviews, as the create-only resources the API server dispatches.
import { createOnlyKey, type CreateOnly } from '../../server/extensions.ts';
import type { RuleResolver } from '../rbac/resolver.ts';
import type { Authorizer } from '../types.ts';
import { selfSubjectRulesReviews } from './rules-review.ts';
import {
  AUTHORIZATION_GROUP,
  localSubjectAccessReviews,
  selfSubjectAccessReviews,
  subjectAccessReviews,
} from './subject-access-review.ts';

export function accessReviews(
  authorizer: Authorizer,
  resolver: Pick<RuleResolver, 'rulesFor'>,
): Map<string, CreateOnly> {
  return new Map([
    [createOnlyKey(AUTHORIZATION_GROUP, 'selfsubjectaccessreviews'), selfSubjectAccessReviews(authorizer)],
    [createOnlyKey(AUTHORIZATION_GROUP, 'subjectaccessreviews'), subjectAccessReviews(authorizer)],
    [createOnlyKey(AUTHORIZATION_GROUP, 'localsubjectaccessreviews'), localSubjectAccessReviews(authorizer)],
    [createOnlyKey(AUTHORIZATION_GROUP, 'selfsubjectrulesreviews'), selfSubjectRulesReviews(resolver)],
  ]);
}
