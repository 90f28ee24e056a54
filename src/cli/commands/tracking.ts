import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { invalidParam, isPaygateError } from '../../domain/errors.js';
import { chooseMerchant } from '../choose.js';
import { addPaging, pageFooter, pageOf } from '../choose.js';
import { record, table } from '../output.js';
import { visible } from '../visible.js';
import type { listTracking } from '../../services/tracking.js';
import { action, exitThreeIf, UsageError, withCtx } from '../shell.js';

// Services load inside each action (on first use): --help, --version, completion and usage errors never need them.

/** CSV header aliases → trackingList field names. */
const HEADERS: Record<string, string> = {
  orderid: 'orderId',
  order: 'orderId',
  transactionorderid: 'orderId',
  relationid: 'relationId',
  relation: 'relationId',
  trackingno: 'trackingNo',
  trackingnumber: 'trackingNo',
  trackingchannel: 'trackingChannel',
  carrier: 'trackingChannel',
  trackurl: 'trackUrl',
  url: 'trackUrl',
};

/** RFC 4180 CSV: quoted fields, doubled quotes, CRLF or LF. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      if (row.some((f) => f !== '')) rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  row.push(field);
  if (row.some((f) => f !== '')) rows.push(row);
  return rows;
}

/**
 * The largest --file read: the HTTP API's body limit (1 MiB), which holds the 500 entries an
 * upload may have. Read unbounded, `--file /dev/zero` ended the process with std::bad_alloc.
 */
export const MAX_TRACKING_FILE_BYTES = 1024 * 1024;

/** The file's text, read only when it is a regular file of at most MAX_TRACKING_FILE_BYTES. */
function readTrackingFile(path: string): string {
  let size: number;
  try {
    // stat before open: opening a FIFO would wait for a writer.
    const st = statSync(path);
    if (!st.isFile()) throw invalidParam('file', `${path} is not a regular file: name a CSV or JSON file`);
    size = st.size;
  } catch (e) {
    if (isPaygateError(e)) throw e;
    throw new UsageError(`--file: cannot read ${path}: ${(e as Error).message}`);
  }
  const tooLarge = () => invalidParam('file', `${path} is larger than 1 MiB, the most one upload may be (split it)`);
  if (size > MAX_TRACKING_FILE_BYTES) throw tooLarge();
  // Read at most one byte past the limit: a file that grew since its stat is refused, not read whole.
  const buf = Buffer.alloc(MAX_TRACKING_FILE_BYTES + 1);
  let got = 0;
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    for (let n = 1; n > 0 && got < buf.length; got += n) n = readSync(fd, buf, got, buf.length - got, null);
  } catch (e) {
    throw new UsageError(`--file: cannot read ${path}: ${(e as Error).message}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (got > MAX_TRACKING_FILE_BYTES) throw tooLarge();
  return buf.toString('utf8', 0, got);
}

export function entriesFromFile(path: string): unknown[] {
  const text = readTrackingFile(path);
  if (/\.json$/i.test(path) || /^\s*[[{]/.test(text)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new UsageError(`--file: ${path} is not valid JSON`);
    }
    const list = Array.isArray(parsed) ? parsed : (parsed as { trackingList?: unknown } | null)?.trackingList;
    if (!Array.isArray(list))
      throw new UsageError('--file: JSON must be an array of entries or {"trackingList": [...]}');
    return list;
  }
  const [header, ...rows] = parseCsv(text.replace(/^\uFEFF/, ''));
  if (!header) throw new UsageError(`--file: ${path} is empty`);
  const keys = header.map(
    (h) =>
      HEADERS[
        h
          .trim()
          .toLowerCase()
          .replace(/[\s_-]/g, '')
      ],
  );
  if (!keys.includes('trackingNo'))
    throw new UsageError(
      '--file: the CSV header needs orderId or relationId, trackingNo, trackingChannel (carrier), trackUrl (url)',
    );
  return rows.map((r) => {
    const entry: Record<string, string> = {};
    keys.forEach((k, i) => {
      const v = r[i]?.trim();
      if (k && v) entry[k] = v;
    });
    return entry;
  });
}

interface UploadOptions {
  merchant?: string;
  file?: string;
  order?: string;
  relation?: string;
  trackingNo?: string;
  carrier?: string;
  url?: string;
}

export function registerTrackingCommands(program: Command): void {
  const tracking = program.command('tracking').description('shipment tracking');
  tracking
    .command('upload')
    .description('upload tracking numbers: from a CSV or JSON file, or one entry by flags')
    .option('--merchant <id>', 'merchant id (left out: the only one, or chosen from a list on a terminal)')
    .option('--file <file>', 'FILE.csv (header: orderId,relationId,trackingNo,trackingChannel,trackUrl) or FILE.json')
    .option('--order <id>', 'transactionOrderId')
    .option('--relation <id>', 'relationId')
    .option('--tracking-no <n>', 'tracking number')
    .option('--carrier <name>', 'carrier (trackingChannel)')
    .option('--url <url>', 'tracking link')
    .action(
      action(async (opts: UploadOptions, cmd: Command) => {
        let entries: unknown[];
        if (opts.file !== undefined) {
          if (opts.order || opts.relation || opts.trackingNo || opts.carrier || opts.url)
            throw new UsageError('use either --file or the entry flags');
          entries = entriesFromFile(opts.file);
        } else {
          if (!opts.order && !opts.relation)
            throw new UsageError('give --file FILE, or --order ID (or --relation ID) with --tracking-no and --carrier');
          if (!opts.trackingNo || !opts.carrier)
            throw new UsageError('missing required options: --tracking-no, --carrier');
          entries = [
            {
              ...(opts.order ? { orderId: opts.order } : {}),
              ...(opts.relation ? { relationId: opts.relation } : {}),
              trackingNo: opts.trackingNo,
              trackingChannel: opts.carrier,
              ...(opts.url ? { trackUrl: opts.url } : {}),
            },
          ];
        }
        await withCtx(cmd, async (ctx, out) => {
          const { uploadTrackingWithReasons } = await import('../../services/tracking.js');
          const merchant = await chooseMerchant(ctx, out, opts.merchant);
          const { result, failures } = await uploadTrackingWithReasons(ctx, merchant, {
            merchantId: merchant.id,
            trackingList: entries,
          });
          out.result({ ...result, failures }, () => {
            const summary = record({
              successCount: result.successCount,
              failedCount: result.failedCount,
              sign: result.sign,
            });
            if (failures.length === 0) return summary;
            const rows = failures.map((f) => ({ entry: visible(f.entry), reason: f.reason }));
            return `${summary}\n\nfailed entries:\n${table(rows, { entry: 'entry', reason: 'why' }, { wraps: ['reason'] })}`;
          });
          exitThreeIf(result.failedCount > 0);
        });
      }),
    );

  const columns = {
    transactionOrderId: 'transaction',
    relationId: 'order',
    trackingNo: 'tracking no',
    trackingChannel: 'carrier',
    trackUrl: 'link',
    updateTime: 'uploaded',
  } as const;
  // The transaction and the tracking number never give way.
  const leaveOut = ['trackUrl', 'updateTime', 'relationId', 'trackingChannel'] as const;
  const shown = (rows: Awaited<ReturnType<typeof listTracking>>) =>
    rows.map((r) => ({
      ...r,
      relationId: visible(r.relationId ?? ''),
      trackingNo: visible(r.trackingNo),
      trackingChannel: visible(r.trackingChannel),
      trackUrl: visible(r.trackUrl ?? ''),
    }));

  addPaging(
    tracking
      .command('list')
      .description('uploaded tracking entries of every merchant, newest first')
      .option('--merchant <id>', 'only this merchant'),
  ).action(
    action(async (opts: { merchant?: string; limit: string; page: string }, cmd: Command) => {
      const req = pageOf(opts);
      await withCtx(cmd, async (ctx, out) => {
        const { requireMerchant } = await import('../../services/merchants.js');
        const { listTracking } = await import('../../services/tracking.js');
        const merchantId = opts.merchant ? (await requireMerchant(ctx, opts.merchant)).id : undefined;
        // One more row than asked tells whether another page follows.
        const rows = await listTracking(ctx, { merchantId, limit: req.limit + 1, offset: (req.page - 1) * req.limit });
        const items = rows.slice(0, req.limit);
        out.result(
          items,
          () =>
            `${table(shown(items), columns, { leaveOut })}\n${pageFooter({ items, page: req.page, limit: req.limit, more: rows.length > req.limit })}`,
        );
      });
    }),
  );

  tracking
    .command('show')
    .argument('<id>', 'transactionOrderId')
    .description("a transaction's tracking entries (several for split shipments)")
    .action(
      action(async (id: string, _opts: object, cmd: Command) => {
        await withCtx(cmd, async (ctx, out) => {
          const { showTracking } = await import('../../services/tracking.js');
          const rows = await showTracking(ctx, id);
          out.result(rows, () =>
            rows.length === 0 ? `no tracking uploaded for ${id}` : table(shown(rows), columns, { leaveOut }),
          );
        });
      }),
    );
}
