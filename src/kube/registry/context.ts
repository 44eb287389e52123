// Per-request facts that change how a write behaves.
import type { JsonObject } from '../../apimachinery/meta/index.ts';
import type { ResourceDef } from './resource.ts';
import { systemUser, type UserInfo } from '../auth/user.ts';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface RequestContext {
  /** The authenticated (or impersonated) user's name. */
  user: string;
  /** Everything known of that user: groups for escalation checks, extra for TokenRequest and reviews. */
  userInfo: UserInfo;
  dryRun: boolean;
  /** `fieldManager` query parameter, or a name derived from the User-Agent. */
  fieldManager: string;
  fieldValidation: FieldValidation;
  /** Warnings for the `Warning: 299 - "..."` response headers. */
  warnings: string[];
}

export function internalContext(manager: string): RequestContext {
  const userInfo = systemUser(manager);
  return {
    user: userInfo.username,
    userInfo,
    dryRun: false,
    fieldManager: manager,
    fieldValidation: 'Ignore',
    warnings: [],
  };
}

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE';

export interface AdmissionAttributes {
  def: ResourceDef;
  operation: Operation;
  subresource?: string;
  namespace?: string;
  name: string;
  ctx: RequestContext;
  /** DeleteOptions / CreateOptions / UpdateOptions as sent, for the AdmissionReview. */
  options?: JsonObject;
}

/**
 * Admission as the store sees it: mutating plugins may return a changed object, validating ones
 * throw a StatusError to deny. The webhook dispatcher (part 2) plugs in here.
 */
export interface Admission {
  mutate(attrs: AdmissionAttributes, obj: JsonObject, old: JsonObject | undefined): Promise<JsonObject>;
  validate(attrs: AdmissionAttributes, obj: JsonObject, old: JsonObject | undefined): Promise<void>;
}

export const noAdmission: Admission = {
  mutate: async (_a, obj) => obj,
  validate: async () => {},
};
