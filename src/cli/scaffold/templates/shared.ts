// Names every template agrees on, derived from the PROJECT file.
import type { ProjectFile } from '../project.ts';

export const GENERATED_HEADER_NOTE =
  'a file whose content no longer matches its hash was edited by hand, and `generate` refuses to overwrite it unless given `--force`.';

export function namespaceOf(p: ProjectFile): string {
  return `${p.projectName}-system`;
}

export function names(p: ProjectFile) {
  return {
    serviceAccount: `${p.projectName}-controller-manager`,
    deployment: `${p.projectName}-controller-manager`,
    managerRole: `${p.projectName}-manager-role`,
    metricsService: `${p.projectName}-controller-manager-metrics-service`,
    webhookService: `${p.projectName}-webhook-service`,
    webhookSecret: `${p.projectName}-webhook-server-cert`,
    mutatingConfiguration: `${p.projectName}-mutating-webhook-configuration`,
    validatingConfiguration: `${p.projectName}-validating-webhook-configuration`,
    leaseName: `${p.projectName}.${p.domain}`,
  };
}

/** Where the webhook server answers ConversionReviews (controller-runtime's path). */
export const CONVERSION_PATH = '/convert';
