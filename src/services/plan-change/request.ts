import { z } from 'zod';
import { blankAbsent, parseInput, requiredString } from '../../domain/fields.js';

export const CHANGE_WHEN = ['NOW', 'PERIOD_END'] as const;
export type ChangeWhen = (typeof CHANGE_WHEN)[number];

/** POST /subscription/change. */
export const CHANGE_PLAN_REQUEST = z.object({
  subscriptionId: requiredString(200),
  planId: requiredString(200),
  when: blankAbsent(z.enum(CHANGE_WHEN, { error: `must be one of ${CHANGE_WHEN.join(', ')}` })).default('PERIOD_END'),
});

export type ChangePlanInput = z.output<typeof CHANGE_PLAN_REQUEST>;

export function parseChangeRequest(input: unknown): ChangePlanInput {
  return parseInput(CHANGE_PLAN_REQUEST, input);
}
