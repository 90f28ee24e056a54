/** A plan's billing cycle units: plain values, so `paygate plan create --help` names them without loading the services. */
export const CYCLE_TYPES = ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] as const;
export type CycleType = (typeof CYCLE_TYPES)[number];
