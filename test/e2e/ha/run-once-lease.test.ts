/**
 * One-shot commands on a PostgreSQL store take the daemons' leader lease (docs/ha.md): `run --once` refuses to act
 * (exit 4, naming the holder) while a daemon replica leads, acts once the daemon stopped and released the lease,
 * and the history it wrote is read back from the same database by `ballast history`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { sandboxEnv } from '../../../packages/ballast/src/cli/sandboxEnv.ts';
import { startSandbox, type Sandbox } from '../../../packages/sandbox/src/startSandbox.ts';
import { createDatabase, startPostgres, type PostgresServer } from '../../helpers/postgres.ts';
import { runCli, runCliInProcess } from '../helpers/cli.ts';
import { demoConfigFor } from '../helpers/demoConfig.ts';
import { freshNeed, inBand, NEED_BALANCES, readTreasury } from '../faults/helpers/treasuryNeed.ts';
import { killAllReplicas, leaseHolder, startReplica, stopReplicas, waitFor, LEASE } from './cluster.ts';

let server: PostgresServer;
let sandbox: Sandbox;
let dir: string;
beforeAll(async () => {
  server = await startPostgres();
  sandbox = await startSandbox({ balances: NEED_BALANCES });
  dir = mkdtempSync(path.join(tmpdir(), 'ballast-once-lease-'));
}, 120_000);
afterAll(async () => {
  await killAllReplicas();
  await sandbox?.stop();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('run --once on a PostgreSQL store', () => {
  it('is refused while a daemon leads, acts after the daemon released the lease, and history reads it back', async () => {
    const url = await createDatabase(server.url, 'once_lease');
    await freshNeed(sandbox);
    sandbox.setFaults({ fillDelayMs: 15_000 }); // the daemon's transfer stays in flight a while: it leads meanwhile
    const daemon = await startReplica({ sandbox, dir, name: 'd', storeUrl: url });
    await waitFor('the daemon to lead', async () => ((await leaseHolder(url))?.name === 'd' ? true : null));

    const configFile = path.join(dir, 'once.yaml');
    writeFileSync(configFile, stringify({ ...demoConfigFor(sandbox), store: url, ha: { instance: 'cron', ...LEASE } }));
    const env = sandboxEnv(sandbox, url);
    const refused = await runCli(['run', '--once', '--config', configFile], { env, timeoutMs: 60_000 });
    expect(refused.code, refused.stderr).toBe(4);
    expect(refused.stderr).toMatch(/run lock: pid \d+ on d, since .+, lease until /);

    await stopReplicas([daemon]); // SIGTERM: parks its tracking and releases the lease
    expect((await daemon.exited).code).toBe(0);
    sandbox.resetFaults();
    // The refusal above is a real process; the commands below run the CLI's main() in this process (the same exit
    // codes and output, without a node start each).
    const once = await runCliInProcess(['run', '--once', '--config', configFile], { env });
    expect(once.code, once.stderr).toBe(0);
    await waitFor('the treasury in band', async () => (inBand(await readTreasury(sandbox)) ? true : null), 30_000);
    const again = await runCliInProcess(['run', '--once', '--config', configFile], { env }); // reads the fill
    expect(again.code, again.stderr).toBe(0);

    const history = await runCliInProcess(['history', '--json', '--db', url]);
    expect(history.code, history.stderr).toBe(0);
    const rows = JSON.parse(history.stdout) as { status: string }[];
    expect(rows.map((r) => r.status)).toContain('success');
  }, 180_000);
});
