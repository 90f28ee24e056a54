/**
 * Stripe's documented test cards (docs.stripe.com/testing), as the stand-in plays them.
 * A number that is not a test card is declined the way test mode declines a live card.
 */
export interface Decline {
  code: string;
  declineCode: string;
  message: string;
}

export type CardBehaviour =
  | { kind: 'succeeds' }
  | { kind: 'declines'; decline: Decline }
  /** 4000002500003155: authenticate on-session; once set up for off-session use, off-session charges succeed. */
  | { kind: 'authenticate_unless_set_up' }
  /** 4000002760003184: authentication on every charge; off-session it fails with authentication_required. */
  | { kind: 'always_authenticate' }
  /** 4000000000000341: creating and attaching work; every charge is declined. */
  | { kind: 'attaches_then_declines' };

const generic: Decline = { code: 'card_declined', declineCode: 'generic_decline', message: 'Your card was declined.' };

export const AUTHENTICATION_REQUIRED: Decline = {
  code: 'authentication_required',
  declineCode: 'authentication_required',
  message: 'Your card was declined. This transaction requires authentication.',
};

const SUCCEEDING = [
  '4242424242424242',
  '4000056655665556',
  '5555555555554444',
  '2223003122003222',
  '5200828282828210',
  '5105105105105100',
  '378282246310005',
  '371449635398431',
  '6011111111111117',
  '3056930009020004',
  '36227206271667',
  '3566002020360505',
  '6200000000000005',
];

const SPECIAL: Record<string, CardBehaviour> = {
  '4000000000000002': { kind: 'declines', decline: generic },
  '4000000000009995': {
    kind: 'declines',
    decline: { code: 'card_declined', declineCode: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  },
  '4000000000009987': { kind: 'declines', decline: { ...generic, declineCode: 'lost_card' } },
  '4000000000009979': { kind: 'declines', decline: { ...generic, declineCode: 'stolen_card' } },
  '4000000000000069': {
    kind: 'declines',
    decline: { code: 'expired_card', declineCode: 'expired_card', message: 'Your card has expired.' },
  },
  '4000000000000127': {
    kind: 'declines',
    decline: {
      code: 'incorrect_cvc',
      declineCode: 'incorrect_cvc',
      message: "Your card's security code is incorrect.",
    },
  },
  '4000000000000119': {
    kind: 'declines',
    decline: {
      code: 'processing_error',
      declineCode: 'processing_error',
      message: 'An error occurred while processing your card. Try again in a little bit.',
    },
  },
  '4000000000000341': { kind: 'attaches_then_declines' },
  '4000002500003155': { kind: 'authenticate_unless_set_up' },
  '4000002760003184': { kind: 'always_authenticate' },
  '4000000000003220': { kind: 'always_authenticate' },
};

export function behaviourOf(number: string): CardBehaviour {
  const special = SPECIAL[number];
  if (special) return special;
  if (SUCCEEDING.includes(number)) return { kind: 'succeeds' };
  return {
    kind: 'declines',
    decline: {
      code: 'card_declined',
      declineCode: 'test_mode_live_card',
      message:
        'Your card was declined. Your request was in test mode, but used a non test (live) card. For a list of valid test cards, visit: https://stripe.com/docs/testing.',
    },
  };
}

export const GENERIC_DECLINE = generic;

export function luhnValid(number: string): boolean {
  if (!/^\d{12,19}$/.test(number)) return false;
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let d = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export function brandOf(number: string): string {
  if (/^4/.test(number)) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(number)) return 'mastercard';
  if (/^3[47]/.test(number)) return 'amex';
  if (/^(6011|65|64[4-9])/.test(number)) return 'discover';
  if (/^3(0[0-5]|[68])/.test(number)) return 'diners';
  if (/^35/.test(number)) return 'jcb';
  if (/^62/.test(number)) return 'unionpay';
  return 'unknown';
}
