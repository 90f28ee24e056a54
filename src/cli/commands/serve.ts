import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { Clock } from '../../domain/clock.js';
import { action, StartupError, UsageError, withCtx } from '../shell.js';

// Services load inside each action (on first use): --help, --version, completion and usage errors never need them.

interface ServeOptions {
  host?: string;
  port?: string;
  publicUrl?: string;
  tlsCert?: string;
  tlsKey?: string;
  renew: boolean;
  renewCron?: string;
  rateLimit: boolean;
  trustProxy?: string;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function parsePort(text: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) throw new UsageError(`--port must be 0–65535, not ${text}`);
  return Number(text);
}

function readPem(flag: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a directory'
            : (e as Error).message;
    throw new StartupError(`${flag}: cannot read ${file}: ${why}`);
  }
}

/** What went wrong at start-up, in one line an operator can act on; anything else unchanged. */
function startupProblem(e: unknown, host: string, port: number): unknown {
  const code = (e as NodeJS.ErrnoException | undefined)?.code ?? '';
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (code === 'EADDRINUSE')
    return new StartupError(
      `cannot listen on ${where}: the address is already in use (another paygate serve? choose another --port)`,
    );
  if (code === 'EACCES')
    return new StartupError(`cannot listen on ${where}: permission denied (ports below 1024 need privileges)`);
  if (code === 'EADDRNOTAVAIL')
    return new StartupError(`cannot listen on ${where}: no such address on this machine (check --host)`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new StartupError(`cannot listen on ${where}: unknown host (check --host)`);
  if (code.startsWith('ERR_OSSL') || /PEM|certificate|private key/i.test((e as Error | undefined)?.message ?? '')) {
    return new StartupError(
      `--tls-cert/--tls-key: not a usable PEM certificate and matching key (${(e as Error).message})`,
    );
  }
  return e;
}

/**
 * Tests of expiry run a second `serve` with its clock shifted; honoured only with NODE_ENV=test
 * so a production server can never be told a different time.
 */
function serveClock(env: NodeJS.ProcessEnv): { clock?: Clock } {
  const offset = Number(env.PAYGATE_TEST_CLOCK_OFFSET_MS ?? '0');
  if (env.NODE_ENV !== 'test' || !Number.isFinite(offset) || offset === 0) return {};
  // The whole server is moved in time, leases included: it stands for a later moment.
  const shifted = (): number => Date.now() + offset;
  return { clock: { now: shifted, wall: shifted } };
}

let stdoutErrorsHandled = false;

/**
 * A line on standard output; why it could not be written, if it could not. Standard output that
 * fails (a full disk) must not end serve with an uncaught 'error' event (the CLI's own listener
 * rethrows all but EPIPE): at start-up it is the start-up error, later the lines are dropped
 * (src/http/log-destination.ts) and serve goes on.
 */
function writeStdout(text: string): Promise<string | undefined> {
  if (!stdoutErrorsHandled) {
    stdoutErrorsHandled = true;
    process.stdout.removeAllListeners('error');
    process.stdout.on('error', () => {});
  }
  const why = (e: Error): string => e.message.replace(/, write$/, '');
  return new Promise((resolve) => {
    try {
      process.stdout.write(text, (err) => resolve(err ? why(err) : undefined));
    } catch (e) {
      // A file or /dev/full: Node writes it synchronously, and throws.
      resolve(why(e as Error));
    }
  });
}

export function registerServeCommands(program: Command): void {
  program
    .command('serve')
    .description('run the HTTP API, the hosted pages, the renewal timer and callback delivery')
    .option('--host <host>', 'listen address (PAYGATE_HOST, default 127.0.0.1)')
    .option('--port <port>', 'listen port, 0 picks a free one (PAYGATE_PORT, default 8080)')
    .option('--public-url <url>', 'base URL of checkout / 3DS links (PAYGATE_PUBLIC_URL, default http://<host>:<port>)')
    .option('--tls-cert <file>', 'TLS certificate (PEM); otherwise run behind a TLS proxy')
    .option('--tls-key <file>', 'TLS private key (PEM)')
    .option('--no-renew', 'do not run renewals inside serve')
    .option('--renew-cron <expr>', 'renewal schedule, cron syntax (PAYGATE_RENEW_CRON, default "* * * * *")')
    .option(
      '--trust-proxy <list>',
      'believe X-Forwarded-For only from these proxy addresses or CIDR ranges, comma-separated (PAYGATE_TRUST_PROXY; default: none)',
    )
    .option('--no-rate-limit', 'turn the per-merchant rate limits off (benchmarks only; PAYGATE_RATE_LIMIT=off)')
    .action(
      action(async (opts: ServeOptions, cmd: Command) => {
        // The HTTP stack is loaded only here: every other command would pay its start-up time.
        const { checkCron, startBackground } = await import('../../http/background.js');
        const { buildServer } = await import('../../http/server.js');
        const { stdoutLog } = await import('../../http/log-destination.js');
        const { parseTrustProxy } = await import('../../http/trust-proxy.js');
        const { normalisePublicUrl, setPublicUrl, storedPublicUrl } = await import('../../services/public-url.js');
        const env = process.env;
        // An empty value is unset, as for every PAYGATE_* setting: never "every interface".
        if (opts.host === '') throw new UsageError('--host: name an address (0.0.0.0 listens on every interface)');
        const host = opts.host ?? (env.PAYGATE_HOST || '127.0.0.1');
        const port = parsePort(opts.port ?? (env.PAYGATE_PORT || '8080'));
        if (Boolean(opts.tlsCert) !== Boolean(opts.tlsKey))
          throw new UsageError('--tls-cert and --tls-key go together');
        const https =
          opts.tlsCert && opts.tlsKey
            ? { cert: readPem('--tls-cert', opts.tlsCert), key: readPem('--tls-key', opts.tlsKey) }
            : undefined;
        const renewCron = opts.renewCron ?? env.PAYGATE_RENEW_CRON ?? '* * * * *';
        const cronProblem = opts.renew ? checkCron(renewCron) : undefined;
        if (cronProblem) throw new UsageError(`--renew-cron ${JSON.stringify(renewCron)}: ${cronProblem}`);
        const rateLimit = opts.rateLimit && env.PAYGATE_RATE_LIMIT !== 'off';
        const trustText = opts.trustProxy ?? env.PAYGATE_TRUST_PROXY;
        let trustProxy: string[] = [];
        if (trustText !== undefined && trustText.trim() !== '') {
          const parsed = parseTrustProxy(trustText);
          if (!parsed.ok) throw new UsageError(`--trust-proxy: ${parsed.message}`);
          trustProxy = parsed.list;
        }
        const metricsToken = env.PAYGATE_METRICS_TOKEN || undefined;
        const wantedPublicUrl = opts.publicUrl || env.PAYGATE_PUBLIC_URL;
        if (wantedPublicUrl) {
          try {
            normalisePublicUrl(wantedPublicUrl, '--public-url');
          } catch (e) {
            throw new UsageError(e instanceof Error ? e.message : String(e));
          }
        }
        const logLevel = env.PAYGATE_LOG_LEVEL ?? 'info';
        if (!LOG_LEVELS.includes(logLevel))
          throw new UsageError(
            `PAYGATE_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not ${JSON.stringify(logLevel)}`,
          );

        await withCtx(
          cmd,
          async (ctx) => {
            const { displayDb } = await import('../../config.js');
            // Until the server has started, a log that cannot be written is the start-up error.
            const logStream = stdoutLog();
            logStream.hold();
            let app: Awaited<ReturnType<typeof buildServer>>;
            try {
              app = await buildServer(ctx, {
                rateLimit,
                logLevel,
                logStream,
                trustProxy,
                ...(metricsToken ? { metricsToken } : {}),
                ...(https ? { https } : {}),
              });
            } catch (e) {
              throw startupProblem(e, host, port);
            }
            try {
              await app.listen({ host, port });
            } catch (e) {
              await app.close().catch(() => undefined);
              throw startupProblem(e, host, port);
            }
            const bound = app.server.address();
            const actualPort = bound !== null && typeof bound === 'object' ? bound.port : port;
            const urlHost = host.includes(':') ? `[${host}]` : host;
            const own = `${https ? 'https' : 'http'}://${urlHost}:${actualPort}`;
            // An explicit public URL is recorded, so CLI commands and other instances build the same
            // links; without one, the recorded URL stays, else links use this server's address.
            const explicit = opts.publicUrl || env.PAYGATE_PUBLIC_URL;
            if (explicit) await setPublicUrl(ctx, explicit);
            else if (!(await storedPublicUrl(ctx))) ctx.config.publicUrl = own;
            const background = startBackground(ctx, { renew: opts.renew, renewCron, log: app.log });
            const publicNote = ctx.config.publicUrl === own ? '' : ` (pages and links use ${ctx.config.publicUrl})`;
            const renewNote = opts.renew ? `renewals on cron "${renewCron}"` : 'renewals off (--no-renew)';
            const unwritable =
              (await writeStdout(
                `paygate listening on ${own}${publicNote} · database ${displayDb(ctx.config.dbPath)} · ${renewNote}\n`,
              )) ?? (await logStream.release());
            if (unwritable !== undefined) {
              await background.stop();
              await app.close();
              throw new StartupError(`cannot write to standard output: ${unwritable}`);
            }

            await new Promise<void>((resolve) => {
              let stopping = false;
              const stop = (signal: string): void => {
                if (stopping) process.exit(1); // a second signal: stop waiting
                stopping = true;
                app.log.info({ signal }, 'shutting down: finishing in-flight requests');
                const force = setTimeout(() => process.exit(1), 15_000);
                force.unref();
                void (async () => {
                  await background.stop();
                  // Keep-alive connections become idle once their in-flight request is answered;
                  // close them as they do, so close() does not wait for clients to hang up.
                  const idle = setInterval(() => app.server.closeIdleConnections(), 50);
                  await app.close();
                  clearInterval(idle);
                  // Every log line out before "paygate stopped", which goes straight to stdout.
                  await new Promise<void>((done) => logStream.flush(() => done()));
                  resolve();
                })();
              };
              process.on('SIGTERM', () => stop('SIGTERM'));
              process.on('SIGINT', () => stop('SIGINT'));
            });
          },
          serveClock(env),
        );
        void writeStdout('paygate stopped\n');
      }),
    );
}
