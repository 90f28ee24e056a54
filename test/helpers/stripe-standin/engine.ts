/** The stand-in's Stripe, without HTTP: operations on one account's state. */
export * from './engine-ctx.js';
export * from './ops-cards.js';
export * from './ops-intents.js';
export * from './ops-refunds.js';
export * from './ops-cancel.js';
export * from './ops-setup-intents.js';
