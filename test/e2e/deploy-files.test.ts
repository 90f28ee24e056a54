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
