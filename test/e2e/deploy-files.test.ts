import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/env.js';

/**
 * The deployment files of docs/deploy.md are checked by the tools that will read them:
 * systemd-analyze for the units, nginx -t and caddy validate for the proxies. Locally a missing
 * tool skips its check with a warning; in CI (.ci/run installs them) every check must run.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const DEPLOY = join(ROOT, 'deploy');
const INSTALLED_BIN = '/usr/local/bin/paygate';

const cleanups: Array<() => void> = [];
afterAll(() => {
  for (const c of cleanups) c();
});
function scratch(prefix: string): string {
  const { dir, cleanup } = tempDir(`paygate-${prefix}-`);
  cleanups.push(cleanup);
  return dir;
}

function have(tool: string): boolean {
  const found = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).status === 0;
  if (!found && process.env.CI !== 'true') console.warn(`deploy check skipped: ${tool} not found (CI installs it)`);
  return found || process.env.CI === 'true';
}

function run(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): { status: number | null; output: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe.skipIf(!have('systemd-analyze'))('systemd units', () => {
  const units = readdirSync(join(DEPLOY, 'systemd')).filter((f) => /\.(service|timer)$/.test(f));

  it('ships a unit for serve, a renewal timer and a backup timer', () => {
    expect(units.sort()).toEqual([
      'paygate-backup.service',
      'paygate-backup.timer',
      'paygate-renew.service',
      'paygate-renew.timer',
      'paygate.service',
    ]);
  });

  it('every unit passes systemd-analyze verify', () => {
    // verify insists that ExecStart's program exists: point the installed path at this checkout's
    // launcher in a copy; nothing else in the units is changed.
    const dir = scratch('units');
    for (const f of units) {
      const text = readFileSync(join(DEPLOY, 'systemd', f), 'utf8').replaceAll(
        INSTALLED_BIN,
        join(ROOT, 'bin/paygate.js'),
      );
      writeFileSync(join(dir, f), text);
    }
    const r = run('systemd-analyze', ['verify', ...units.map((f) => join(dir, f))]);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  });

  it('every unit with a state directory keeps it private (StateDirectoryMode=0700)', () => {
    for (const f of units) {
      const text = readFileSync(join(DEPLOY, 'systemd', f), 'utf8');
      if (/^StateDirectory=/m.test(text)) expect(text, f).toMatch(/^StateDirectoryMode=0700$/m);
    }
  });

  it('the service keeps database files private and starts the installed command', () => {
    const text = readFileSync(join(DEPLOY, 'systemd/paygate.service'), 'utf8');
    expect(text).toMatch(/^UMask=0077$/m);
    expect(text).toMatch(/^EnvironmentFile=\/etc\/paygate\/paygate.env$/m);
    expect(text).toContain(`ExecStart=${INSTALLED_BIN} serve`);
  });
});

describe.skipIf(!have('nginx'))('nginx reverse proxy', () => {
  it('passes nginx -t with a certificate in place', () => {
    const dir = scratch('nginx');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=pay.example.com',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const site = readFileSync(join(DEPLOY, 'proxy/nginx.conf'), 'utf8')
      .replace('/etc/letsencrypt/live/pay.example.com/fullchain.pem', join(dir, 'cert.pem'))
      .replace('/etc/letsencrypt/live/pay.example.com/privkey.pem', join(dir, 'key.pem'))
      .replace('/var/log/nginx/', `${dir}/`);
    writeFileSync(join(dir, 'site.conf'), site);
    writeFileSync(
      join(dir, 'nginx.conf'),
      `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\nhttp {\n  include ${join(DEPLOY, 'proxy/nginx-log-format.conf')};\n  include ${dir}/site.conf;\n}\n`,
    );
    const r = run('nginx', ['-t', '-p', dir, '-c', join(dir, 'nginx.conf')]);
    expect(r.output).toContain('test is successful');
    expect(r.status).toBe(0);
  });

  it('keeps its body limit above paygate’s 1 MiB so clients get paygate’s own answer', () => {
    expect(readFileSync(join(DEPLOY, 'proxy/nginx.conf'), 'utf8')).toMatch(/client_max_body_size 2m;/);
  });
});

describe.skipIf(!have('caddy'))('Caddy reverse proxy', () => {
  it('passes caddy validate', () => {
    const home = scratch('caddy');
    const r = run('caddy', ['validate', '--config', join(DEPLOY, 'proxy/Caddyfile'), '--adapter', 'caddyfile'], {
      ...process.env,
      HOME: home,
      XDG_DATA_HOME: home,
      XDG_CONFIG_HOME: home,
    });
    expect(r.output).toContain('Valid configuration');
    expect(r.status).toBe(0);
  });
});

describe('container files', () => {
  const dockerfile = readFileSync(join(DEPLOY, 'docker/Dockerfile'), 'utf8');

  it('runs as a non-root user on Node 24 LTS slim with the database on a volume', () => {
    expect(dockerfile.match(/^FROM node:24-slim/gm)).toHaveLength(2);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^VOLUME \["\/data"\]$/m);
    expect(dockerfile).not.toMatch(/PAYGATE_VAULT_KEY/);
  });

  it('copies only what the build context keeps (no database or key files)', () => {
    const ignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const p of ['node_modules', '*.db', '*.db.key', 'deploy/docker/paygate.env']) expect(ignore).toContain(p);
    expect(existsSync(join(DEPLOY, 'docker/compose.yaml'))).toBe(true);
  });
});

describe('the packed package', () => {
  const packed = (() => {
    const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
    const out = JSON.parse(r.stdout) as { files: { path: string }[] }[];
    return new Set((out[0]?.files ?? []).map((f) => f.path));
  })();

  it('ships docs/ and deploy/, so an installed copy has what its units and README name', () => {
    for (const f of [
      'docs/deploy.md',
      'docs/api.md',
      'docs/postgres.md',
      'deploy/systemd/paygate.service',
      'deploy/systemd/paygate.env.example',
      'deploy/proxy/Caddyfile',
      'deploy/docker/Dockerfile',
    ])
      expect(packed, f).toContain(f);
    expect([...packed].filter((p) => /(^|\/)paygate\.env$|\.db$|\.key$/.test(p))).toEqual([]);
  });

  it('holds every file a unit’s Documentation= points to in the installed package', () => {
    const prefix = 'file:///usr/local/lib/node_modules/paygate/';
    for (const f of readdirSync(join(DEPLOY, 'systemd'))) {
      const docs = [...readFileSync(join(DEPLOY, 'systemd', f), 'utf8').matchAll(/^Documentation=(.+)$/gm)];
      for (const [, target = ''] of docs) {
        expect(target.startsWith(prefix), `${f}: ${target}`).toBe(true);
        expect(packed, `${f}: ${target}`).toContain(target.slice(prefix.length));
      }
    }
  });
});

describe('docs/deploy.md, "Create the first merchant"', () => {
  it('runs with the shipped env file: the file’s settings and key reach paygate, its comments are skipped', () => {
    const doc = readFileSync(join(ROOT, 'docs/deploy.md'), 'utf8');
    const block = /Create the first merchant[^\n]*\n\n```sh\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
    expect(block).toContain('runuser -u paygate -- paygate merchant create');
    const dir = scratch('first-merchant');
    const envFile = join(dir, 'paygate.env');
    // As section 2 says: the example, with the generated key pasted in.
    writeFileSync(
      envFile,
      readFileSync(join(DEPLOY, 'systemd/paygate.env.example'), 'utf8').replace(
        /^PAYGATE_VAULT_KEY=$/m,
        `PAYGATE_VAULT_KEY=${Buffer.alloc(32, 9).toString('base64')}`,
      ),
    );
    const db = join(dir, 'paygate.db');
    // The service user and the installed command are the only parts swapped for this checkout's.
    const script = block
      .replaceAll('/etc/paygate/paygate.env', envFile)
      .replaceAll('/var/lib/paygate/paygate.db', db)
      .replace('runuser -u paygate -- paygate', `${JSON.stringify(process.execPath)} ${join(ROOT, 'bin/paygate.js')}`);
    const r = run('sh', ['-c', `${script}\n`], { PATH: process.env.PATH, HOME: dir });
    expect(r.output).toContain('"name": "My Shop"');
    expect(r.status).toBe(0);
    // The key came from the file: no key file was generated beside the database.
    expect(existsSync(`${db}.key`)).toBe(false);
    const listed = run(process.execPath, [join(ROOT, 'bin/paygate.js'), '--db', db, '--json', 'merchant', 'list'], {
      PATH: process.env.PATH,
      HOME: dir,
      PAYGATE_VAULT_KEY: Buffer.alloc(32, 9).toString('base64'),
    });
    expect(listed.output).toContain('My Shop');
    expect(listed.status).toBe(0);
  });
});
