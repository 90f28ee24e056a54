import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { randomToken } from '../../domain/ids.js';
import { chooseMerchant } from '../choose.js';
import type { TransactionView } from '../../services/transactions/index.js';
import { askMissing, checkGiven, type MissingField } from '../prompts.js';
import { amountCheck, cardNumberCheck, cvvCheck, EXPIRY_RE, expiryCheck } from '../validate.js';
import { record } from '../output.js';
import type { Output } from '../output.js';
import { action, exitForCharge, outputOf, UsageError, withCtx } from '../shell.js';

// Services load inside each action (on first use): --help, --version, completion and usage errors never need them.

/** CARD options shared by `pay` and `subscribe` (SPEC §12). */
export interface CardOptions {
  card?: string;
  exp?: string;
  cvv?: string;
  holder?: string;
  cardJson?: string;
}

export function addCardOptions(cmd: Command): Command {
  return cmd
    .option('--card <number>', 'card number (ends up in shell history: prefer the prompt or --card-json -)')
    .option('--exp <MM/YYYY>', 'card expiry')
    .option('--cvv <cvv>', 'card verification value (prompted without echo when left out on a terminal)')
    .option('--holder <name>', 'cardholder name')
    .option('--card-json <file>', 'read a cardInfo JSON object from FILE, or "-" for standard input');
}

function readCardJson(source: string): string {
  try {
    return source === '-' ? readFileSync(0, 'utf8') : readFileSync(source, 'utf8');
  } catch (e) {
    throw new UsageError(
      `--card-json: cannot read ${source === '-' ? 'standard input' : source}: ${(e as Error).message}`,
    );
  }
}

/**
 * The cardInfo JSON string from the options; missing card fields are prompted on a terminal (the
 * CVV without echo), a usage error otherwise. Nothing here prints the card.
 */
export async function cardInfoFrom(out: Output, o: CardOptions): Promise<string> {
  if (o.cardJson !== undefined) {
    if (o.card !== undefined || o.exp !== undefined || o.cvv !== undefined)
      throw new UsageError('use either --card-json or --card/--exp/--cvv');
    return readCardJson(o.cardJson).trim();
  }
  if (o.exp !== undefined && expiryCheck(o.exp)) throw new UsageError(`--exp: ${expiryCheck(o.exp) ?? ''}`);
  const missing: MissingField[] = [];
  if (o.card === undefined)
    missing.push({ flag: '--card', message: 'Card number', secret: true, check: cardNumberCheck });
  if (o.exp === undefined) missing.push({ flag: '--exp', message: 'Expiry (MM/YYYY)', check: expiryCheck });
  if (o.cvv === undefined) missing.push({ flag: '--cvv', message: 'CVV', secret: true, check: cvvCheck });
  const a = await askMissing(out, missing);
  const exp = (o.exp ?? a['--exp'] ?? '').trim();
  const m = EXPIRY_RE.exec(exp);
  if (!m) throw new UsageError('--exp: type the month and the four-digit year, e.g. 12/2030');
  const month = (m[1] ?? '').padStart(2, '0');
  return JSON.stringify({
    ...(o.holder ? { holderName: o.holder } : {}),
    cardNumber: (o.card ?? a['--card'] ?? '').replace(/[\s-]/g, ''),
    month,
    year: m[2] ?? '',
    cvv: o.cvv ?? a['--cvv'] ?? '',
  });
}

export const cliId = (prefix: string): string => `${prefix}-${randomToken(12)}`;

/** Human rendering of a transaction result: the view plus the masked card. */
export function renderTransaction(view: TransactionView, card?: string): string {
  return record({ ...view, ...(card ? { card } : {}) });
}

interface PayOptions extends CardOptions {
  merchant?: string;
  amount?: string;
  currency: string;
  checkout?: boolean;
  relation?: string;
  request?: string;
  notifyUrl?: string;
  returnUrl?: string;
  failedUrl?: string;
  cancelUrl?: string;
  items?: string;
}

export function registerPayCommands(program: Command): void {
  const pay = program
    .command('pay')
    .description('charge a card (PAY), or open a hosted checkout page with --checkout')
    .option('--merchant <id>', 'merchant id (left out: the only one, or chosen from a list on a terminal)')
    .option('--amount <amount>', 'amount, e.g. 10.00')
    .option('--currency <code>', 'ISO 4217 currency', 'USD')
    .option('--checkout', 'create a CHECKOUT transaction: the card is entered on the hosted page')
    .option('--relation <id>', 'your order id (relationId); defaults to --request, else generated')
    .option(
      '--request <id>',
      'idempotency key (requestId): run again with the same one to retry safely; generated when left out',
    )
    .option('--notify-url <url>', 'callback URL for this payment')
    .option('--return-url <url>', 'checkout/3DS: where to send the user on success')
    .option('--failed-url <url>', 'checkout/3DS: where to send the user on failure')
    .option('--cancel-url <url>', 'checkout: where to send the user on cancel')
    .option('--items <json>', 'items as a JSON array string');
  addCardOptions(pay).action(
    action(async (opts: PayOptions, cmd: Command) => {
      const out = outputOf(cmd);
      const check = amountCheck(opts.currency, { positive: true });
      checkGiven('payAmount', opts.amount, check);
      if (opts.checkout && (opts.card !== undefined || opts.cardJson !== undefined))
        throw new UsageError('--checkout takes no card: it is entered on the page');
      const ask = async (): Promise<{ amount: string | undefined; cardInfo: string | undefined }> => ({
        amount:
          opts.amount ??
          (
            await askMissing(out, [
              { flag: '--amount', message: `Amount in ${opts.currency.toUpperCase()} (e.g. 10.00)`, check },
            ])
          )['--amount']?.trim(),
        cardInfo: opts.checkout ? undefined : await cardInfoFrom(out, opts),
      });
      // Off a terminal a missing value is a usage error: found before the database is opened.
      const given = out.interactive ? undefined : await ask();
      await withCtx(cmd, async (ctx) => {
        const { createTransaction, showTransaction } = await import('../../services/transactions/index.js');
        // On a terminal the shop comes first, then the amount and the card (nothing is written before the charge).
        const merchant = await chooseMerchant(ctx, out, opts.merchant);
        const { amount, cardInfo } = given ?? (await ask());
        const view = await createTransaction(ctx, merchant, {
          merchantId: merchant.id,
          requestId: opts.request ?? cliId('cli'),
          // A retry with the same --request must be the same request: the order id cannot be new.
          relationId: opts.relation ?? opts.request ?? cliId('order'),
          paymentType: opts.checkout ? 'CHECKOUT' : 'PAY',
          payAmount: amount,
          currency: opts.currency,
          cardInfo,
          notifyUrl: opts.notifyUrl,
          returnUrl: opts.returnUrl,
          failedUrl: opts.failedUrl,
          cancelUrl: opts.cancelUrl,
          items: opts.items,
        });
        const card = (await showTransaction(ctx, view.transactionOrderId, merchant.id)).card;
        out.result(view, () => renderTransaction(view, card));
        exitForCharge(view.status);
      });
    }),
  );
}
