import type { Command } from 'commander';
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { newVaultKeyText, parseVaultKey, readKeyFile, VaultKeyError } from '../../vault/crypto.js';
import { progressBar } from '../progress.js';
import { confirmIrreversible } from '../prompts.js';
import { action, globalsOf, outputOf, UsageError, withCtx } from '../shell.js';

// Services load inside each action (on first use): --help, --version, completion and usage errors never need them.

interface RotateOptions {
  newKeyFile?: string;
  yes?: boolean;
}

/** The new key: from --new-key-file, else PAYGATE_NEW_VAULT_KEY (never a flag value: it would sit in shell history). */
function newKeyOf(opts: RotateOptions): { key: Buffer; text: string } {
  if (opts.newKeyFile) {
    if (!existsSync(opts.newKeyFile)) throw new UsageError(`--new-key-file: ${opts.newKeyFile} does not exist`);
    let text: string;
    try {
      text = readKeyFile(opts.newKeyFile).trim();
    } catch (e) {
      if (e instanceof VaultKeyError) throw new UsageError(`--new-key-file: ${e.message}`);
      throw e;
    }
    return { key: parseVaultKey(text, opts.newKeyFile), text };
  }
  const env = process.env.PAYGATE_NEW_VAULT_KEY;
  if (!env)
    throw new UsageError(
      'give the new key with --new-key-file FILE or PAYGATE_NEW_VAULT_KEY (make one with: paygate vault new-key)',
    );
  return { key: parseVaultKey(env, 'PAYGATE_NEW_VAULT_KEY'), text: env.trim() };
}

/** Replace a key file atomically, mode 0600: a crash leaves the old file or the new one, never half. */
function writeKeyFile(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.new`;
  writeFileSync(tmp, `${text}\n`, { mode: 0o600, flag: 'wx' });
  renameSync(tmp, path);
}

export function registerVaultCommands(program: Command): void {
  const vault = program.command('vault').description('the vault key that encrypts stored cards and merchant secrets');

  vault
    .command('new-key')
    .description(
      'print a new random vault key (base64 of 32 bytes), bare, for PAYGATE_VAULT_KEY=$(…) or > FILE; --json gives {"key"}',
    )
    .action(
      action(async (_opts: object, cmd: Command) => {
        const key = newVaultKeyText();
        // Meant to be redirected (SPEC §12): the key alone off a terminal too, unless --json is asked for.
        if (globalsOf(cmd).json) outputOf(cmd).result({ key });
        else process.stdout.write(`${key}\n`);
      }),
    );

  vault
    .command('rotate')
    .description(
      're-encrypt every stored card and secret under a new vault key (resumable; stop serve and renew first)',
    )
    .option('--new-key-file <file>', 'file holding the new key (base64); or set PAYGATE_NEW_VAULT_KEY')
    .option('-y, --yes', 'do not ask for confirmation on a terminal')
    .action(
      action(async (opts: RotateOptions, cmd: Command) => {
        const next = newKeyOf(opts);
        await withCtx(
          cmd,
          async (ctx, out) => {
            const { rotateVaultKey, countSealedValues } = await import('../../services/vault-rotate.js');
            await confirmIrreversible(
              out,
              opts.yes,
              async () =>
                `Re-encrypt ${await countSealedValues(ctx)} stored cards and secrets under the new key? Stop every other paygate process (serve, renew) first; afterwards only the new key opens this database.`,
            );
            const bar = process.stderr.isTTY ? progressBar(process.stderr) : undefined;
            const summary = await rotateVaultKey(ctx, next.key, (p) => bar?.update(p.done, p.total));
            bar?.done();
            const source = ctx.vaultKeySource;
            if (source.kind === 'file') writeKeyFile(source.path, next.text);
            out.result(
              { ...summary, keyFile: source.kind === 'file' ? source.path : null },
              () =>
                `re-encrypted ${summary.reencrypted} values under the new key${summary.alreadyDone ? ` (${summary.alreadyDone} were already done)` : ''}`,
            );
            out.note(
              source.kind === 'file'
                ? `${source.path} now holds the new key. Backups made before now still need the old one: keep it with them.`
                : 'Set PAYGATE_VAULT_KEY to the new key before starting paygate again. Backups made before now still need the old one: keep it with them.',
            );
          },
          { vaultRotation: 'allow' },
        );
      }),
    );
}
