import type { Command } from 'commander';
import { action, UsageError, withCtx } from '../shell.js';

// Services load inside each action (on first use): --help, --version, completion and usage errors never need them.

/** Settings kept in the database, shared by every process that opens it. */
const KEYS = ['public-url'] as const;
type Key = (typeof KEYS)[number];

function keyOf(text: string): Key {
  if (!(KEYS as readonly string[]).includes(text))
    throw new UsageError(`unknown setting ${JSON.stringify(text)} (settings: ${KEYS.join(', ')})`);
  return text as Key;
}

export function registerConfigCommands(program: Command): void {
  const config = program.command('config').description('settings kept in the database for every process (public-url)');
  config
    .command('set')
    .argument('<key>', 'public-url')
    .argument('<value>', 'the value, e.g. https://pay.example.com')
    .description(
      'record a setting: public-url is the base of checkout and 3DS links (PAYGATE_PUBLIC_URL still wins where set)',
    )
    .action(
      action(async (key: string, value: string, _opts: object, cmd: Command) => {
        keyOf(key);
        await withCtx(cmd, async (ctx, out) => {
          const { setPublicUrl } = await import('../../services/public-url.js');
          const url = await setPublicUrl(ctx, value);
          out.result({ 'public-url': url }, () => `public-url = ${url}`);
        });
      }),
    );
  config
    .command('get')
    .argument('<key>', 'public-url')
    .description('show a recorded setting and the value this process uses')
    .action(
      action(async (key: string, _opts: object, cmd: Command) => {
        keyOf(key);
        await withCtx(cmd, async (ctx, out) => {
          const { storedPublicUrl } = await import('../../services/public-url.js');
          const recorded = (await storedPublicUrl(ctx)) ?? null;
          const effective = ctx.config.publicUrl;
          out.result(
            { 'public-url': recorded, effective, fromEnvironment: ctx.config.publicUrlFromEnv },
            () =>
              `public-url = ${recorded ?? '(not recorded)'}${ctx.config.publicUrlFromEnv ? `; PAYGATE_PUBLIC_URL overrides it here: ${effective}` : ''}`,
          );
        });
      }),
    );
  config
    .command('unset')
    .argument('<key>', 'public-url')
    .description("forget a recorded setting (links then use serve's own address)")
    .action(
      action(async (key: string, _opts: object, cmd: Command) => {
        keyOf(key);
        await withCtx(cmd, async (ctx, out) => {
          const { unsetPublicUrl } = await import('../../services/public-url.js');
          await unsetPublicUrl(ctx);
          out.result({ 'public-url': null }, () => 'public-url forgotten');
        });
      }),
    );
}
