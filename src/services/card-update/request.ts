import { z } from 'zod';
import { jsonDocument, parseInput, requiredString } from '../../domain/fields.js';

/** POST /subscription/card/update. cardInfo as in a transaction request (a JSON string or the object). */
export const CARD_UPDATE_REQUEST = z.object({
  subscriptionId: requiredString(200),
  cardInfo: jsonDocument('object of a card', { $ref: '#/components/schemas/CardInfo' }, true),
});

export function parseCardUpdate(input: unknown): z.output<typeof CARD_UPDATE_REQUEST> {
  return parseInput(CARD_UPDATE_REQUEST, input);
}
