/**
 * `ballast api-check` against `ballast sandbox` running as its own process: with a key, GET /chains, POST
 * /quote/v2 and POST /quote/v3 are each one line saying usable (every route quoted, mapped and verified), exit 0,
 * and `--save` writes the raw responses with no trace of the key; when the operator's own fee cap refuses the
 * probe routes, the endpoints still say usable (exit 0) and a warning per route names the config key; /quote/v3
 * quotes (no fees.gas) are priced with GET /currencies/token/price, so no route is left unpriced; without a key the /quote/v3 line says the key
 * was refused (exit 1); with an unreachable base URL every line says unreachable (exit 1). Nothing is signed.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createPublicClient, http } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { cliArgv, ROOT, runCli, runCliInProcess } from './helpers/cli.ts';
import { closedPort } from './helpers/offlineConfig.ts';
import { tempDir } from './helpers/sandboxBallast.ts';

const tmp = tempDir('ballast-api-check-');
afterAll(() => tmp.cleanup());

const KEY = 'sk-api-check-7f3e9d21';
const TREASURY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

describe('ballast api-check', () => {
  it('reports one line per endpoint against the sandbox, saves redacted responses, and reports failures', async () => {
    const child = spawn(process.execPath, cliArgv(['sandbox', '--store', path.join(tmp.dir, 's.db')]), {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      const until = Date.now() + 90_000; // the sandbox compiles its contracts and starts four nodes: slow on a loaded machine
      while (!stdout.includes('export BALLAST_DEMO_STORE') && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      const env = Object.fromEntries([...stdout.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
      expect(env.SANDBOX_API_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      // The demo config with a key, and 1000 USDC as the smallest transfer (at 100 USDC the flat fees exceed
      // the demo's 30 bps cap on the Solana routes, which verification rightly refuses).
      const demo = readFileSync(path.join(ROOT, 'packages/ballast/config/demo.yaml'), 'utf8');
      const withKey = demo
        .replace('  referrer: ballast-demo\n', '  referrer: ballast-demo\n  apiKey: "${RELAY_API_KEY}"\n')
        .replace(/^  minTransfer: "100"$/m, '  minTransfer: "1000"');
      expect(withKey).toContain('apiKey: "${RELAY_API_KEY}"');
      const config = path.join(tmp.dir, 'ballast.yaml');
      writeFileSync(config, withKey);
      const alpha = createPublicClient({ transport: http(env.SANDBOX_ALPHA_RPC) });
      const nonceBefore = await alpha.getTransactionCount({ address: TREASURY });

      const saveDir = path.join(tmp.dir, 'saved');
      const ok = await runCli(['api-check', '--config', config, '--save', saveDir], { env: { ...env, RELAY_API_KEY: KEY } });
      expect(ok.code, ok.stdout + ok.stderr).toBe(0);
      const lines = ok.stdout.trim().split('\n');
      expect(lines.slice(0, 3).map((l) => l.split(';')[0])).toEqual([
        'GET /chains: usable',
        'POST /quote/v2: usable',
        'POST /quote/v3: usable',
      ]);
      // demo.yaml: USDC on alpha, beta and Solana (6 routes), BTC on Bitcoin and alpha (2 routes).
      expect(lines[1]).toContain('schema parsed 8/8; verification 8/8 verified');
      expect(lines[2]).toContain('key accepted; schema parsed 8/8; verification 8/8 verified');
      // The retiring endpoint says so (RFC 9745 / RFC 8594 headers, parsed); its successor does not.
      expect(lines[1]).toMatch(
        /Deprecation 2026-11-25 \(@1795564800\); Sunset 2027-02-23 \(Tue, 23 Feb 2027 00:00:00 GMT\); successor http:\/\/127\.0\.0\.1:\d+\/quote\/v3/,
      );
      expect(lines[2]).toContain('Deprecation -; Sunset -');
      expect(await alpha.getTransactionCount({ address: TREASURY })).toBe(nonceBefore); // signs nothing
      // 1000 USDC is within the caps. /quote/v3 has no fees.gas: the origin cost is priced with GET
      // /currencies/token/price (the origin's native currency), so a cycle on v3 would take every route too.
      expect(lines.filter((l) => l.startsWith('warning: your policy refuses'))).toEqual([]);
      expect(lines.filter((l) => l.startsWith('warning: a cycle on POST /quote/v3 would skip '))).toEqual([]);
      expect(lines).toHaveLength(3 + 1);
      expect(lines.at(-1)).toMatch(/^saved \d+ file\(s\) in /);

      // The demo's own smallest transfer, 100 USDC: its 30 bps cap refuses the quotes of the EVM-origin USDC routes
      // (before, api-check called POST /quote/v2 NOT usable and exited 1). The endpoints work: exit 0, and one warning
      // per refused route names the key to change.
      const capped = path.join(tmp.dir, 'capped.yaml');
      writeFileSync(capped, withKey.replace(/^ {2}minTransfer: "1000"$/m, '  minTransfer: "100"'));
      const tight = await runCliInProcess(['api-check', '--config', capped], { env: { ...env, RELAY_API_KEY: KEY } });
      expect(tight.code, tight.stdout + tight.stderr).toBe(0);
      const tightLines = tight.stdout.trim().split('\n');
      expect(tightLines.slice(0, 3).map((l) => l.split(';')[0])).toEqual([
        'GET /chains: usable',
        'POST /quote/v2: usable',
        'POST /quote/v3: usable',
      ]);
      expect(tightLines[1]).toContain('verification 8/8 verified');
      expect(tightLines[1]).toMatch(/; a cycle would skip 4 of 8 verified routes \(below\)$/);
      // /quote/v3 quotes are priced like v2 ones (origin cost via GET /currencies/token/price): the same four are refused.
      expect(tightLines[2]).toMatch(/; a cycle would skip 4 of 8 verified routes \(below\)$/);
      const refused = tightLines.filter((l) => l.startsWith('warning: your policy refuses '));
      expect(
        refused
          .map((l) => /^warning: your policy refuses (.+) on POST \/quote\/v2, POST \/quote\/v3 \(the endpoints work\): /.exec(l)?.[1])
          .sort(),
      ).toEqual([
        'USDC alpha:treasury→beta:treasury',
        'USDC alpha:treasury→solana:treasury_sol',
        'USDC beta:treasury→alpha:treasury',
        'USDC beta:treasury→solana:treasury_sol',
      ]);
      for (const l of refused) expect(l).toMatch(/exceeds cap 30 bps; .*raise policy\.maxFees\.totalBps/);
      const tightJson = await runCliInProcess(['api-check', '--config', capped, '--json'], { env: { ...env, RELAY_API_KEY: KEY } });
      expect(tightJson.code).toBe(0);
      const report = JSON.parse(tightJson.stdout) as {
        usable: boolean;
        warnings: string[];
        endpoints: { policyRefusals?: { kind: string }[] }[];
      };
      expect(report.usable).toBe(true);
      expect(report.warnings).toEqual(tightLines.slice(3));
      expect(report.endpoints[1]!.policyRefusals!.map((r) => r.kind)).toEqual(['caps', 'caps', 'caps', 'caps']);
      expect(report.endpoints[2]!.policyRefusals!.map((r) => r.kind)).toEqual(['caps', 'caps', 'caps', 'caps']);

      const files = readdirSync(saveDir).sort();
      expect(files).toContain('chains.json');
      expect(files).toContain('chains.headers.json');
      expect(files.filter((f) => /^quote-v3-.*\.headers\.json$/.test(f))).toHaveLength(8);
      const v3 = JSON.parse(readFileSync(path.join(saveDir, 'quote-v3-USDC-alpha-treasury-beta-treasury.json'), 'utf8')) as {
        steps: { data: object }[];
        fees: { quoted: object };
      };
      expect(v3.steps.every((s) => !('items' in s))).toBe(true); // the raw v3 body, flat steps
      expect(Object.keys(v3.fees.quoted)).toContain('platform');
      for (const f of files) expect(readFileSync(path.join(saveDir, f), 'utf8')).not.toContain(KEY);

      const noKey = await runCli(['api-check', '--config', path.join(ROOT, 'packages/ballast/config/demo.yaml')], { env });
      expect(noKey.code).toBe(1);
      const noKeyLines = noKey.stdout.trim().split('\n');
      // Then the warnings of the demo's 100 USDC routes its cap refuses on /quote/v2 (which takes no key here).
      expect(noKeyLines.slice(3).map((l) => l.slice(0, 'warning: your policy refuses'.length))).toEqual(
        Array(4).fill('warning: your policy refuses'),
      );
      expect(noKeyLines[2]).toMatch(/^POST \/quote\/v3: NOT usable; reachable yes; key refused;/);
      expect(noKeyLines[2]).toContain('HTTP 401 UNAUTHORIZED_QUOTE: Please provide an api key');
      expect(noKeyLines[0]).toMatch(/^GET \/chains: usable/);

      // The CLI's main() in this process (the key refusal above is the real process's exit 1).
      const down = await runCliInProcess(['api-check', '--config', config], {
        env: { ...env, RELAY_API_KEY: KEY, SANDBOX_API_URL: `http://127.0.0.1:${await closedPort()}` },
      });
      expect(down.code).toBe(1);
      const downLines = down.stdout.trim().split('\n');
      expect(downLines.map((l) => l.split(';').slice(0, 2).join(';'))).toEqual([
        'GET /chains: NOT usable; reachable no',
        'POST /quote/v2: NOT usable; reachable no',
        'POST /quote/v3: NOT usable; reachable no',
      ]);
      expect(downLines.every((l) => l.includes('ECONNREFUSED'))).toBe(true);
    } finally {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
  }, 180_000);
});
