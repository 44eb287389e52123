// The campaign's length and seed: the caller's defaults, overridden from the environment so a failed
// run can be replayed (FAULT_CAMPAIGN_SEED) or made longer or shorter (FAULT_CAMPAIGN_CYCLES,
// FAULT_CAMPAIGN_BUDGET_S).
export interface CampaignSettings {
  seed: number;
  cycles: number;
  budgetMs: number;
}

export function campaignSettings(
  defaults: { seed: number; cycles: number; budgetS: number },
  env: NodeJS.ProcessEnv = process.env,
): CampaignSettings {
  const read = (key: string, fallback: number): number => {
    const raw = env[key];
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d+$/.test(raw)) throw new Error(`${key} must be a non-negative integer, got ${JSON.stringify(raw)}`);
    return Number(raw);
  };
  return {
    seed: read('FAULT_CAMPAIGN_SEED', defaults.seed),
    cycles: read('FAULT_CAMPAIGN_CYCLES', defaults.cycles),
    budgetMs: read('FAULT_CAMPAIGN_BUDGET_S', defaults.budgetS) * 1000,
  };
}
