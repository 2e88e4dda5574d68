/**
 * The example configs' `$schema` hint (`# yaml-language-server: $schema=./ballast.schema.json`) resolves wherever
 * the config is: copied to a directory of its own (as to /etc/ballast), `ballast schema --out <dir>` writes the
 * schema where the hint points, and that schema judges a good and a bad config as the loader does. The schema is
 * checked by ajv (JSON Schema 2020-12), as an editor's language server would.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildProgram, main } from '../../../packages/ballast/src/cli/main.ts';
import { ConfigError, loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { API_KEY, KEY, KEY_ADDRESS } from './helpers.ts';

const CONFIG_DIR = fileURLToPath(new URL('../../../packages/ballast/config/', import.meta.url));
const DIR = mkdtempSync(path.join(tmpdir(), 'ballast-schema-hint-'));
afterAll(() => rmSync(DIR, { recursive: true, force: true }));

writeFileSync(path.join(DIR, 'treasury-evm.key'), `${KEY}\n`, { mode: 0o600 });
const ENV = {
  RELAY_API_KEY: API_KEY,
  CREDENTIALS_DIRECTORY: DIR,
  TREASURY_EVM_ADDRESS: KEY_ADDRESS,
  ETH_RPC: 'https://eth.example/rpc',
  BASE_RPC: 'https://base.example/rpc',
  ARB_RPC: 'https://arb.example/rpc',
  OP_RPC: 'https://op.example/rpc',
};

/** The file a config's `$schema` hint names, resolved from the config's directory as the YAML language server does. */
function hintedSchema(configFile: string): string {
  const hint = /^# yaml-language-server: \$schema=(\S+)$/m.exec(readFileSync(configFile, 'utf8'))?.[1];
  if (!hint) throw new Error(`${configFile} has no yaml-language-server $schema hint`);
  return path.resolve(path.dirname(configFile), hint);
}

/** ajv's verdict on a YAML file: the instance paths of its errors (empty when valid). */
function schemaErrors(schemaFile: string, configFile: string): string[] {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const validate = ajv.compile(JSON.parse(readFileSync(schemaFile, 'utf8')) as object);
  if (validate(parse(readFileSync(configFile, 'utf8')))) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

/** The loader's verdict: the paths of its issues (empty when the config loads). */
function loaderIssues(configFile: string): string[] {
  try {
    loadConfig(configFile, ENV);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.issues.map((i) => i.path);
  }
}

describe('the $schema hint of a copied config', () => {
  const config = path.join(DIR, 'ballast.yaml');
  copyFileSync(path.join(CONFIG_DIR, 'ballast.example.yaml'), config);

  it('points at nothing until `ballast schema --out` writes the schema beside the config', async () => {
    expect(existsSync(hintedSchema(config))).toBe(false);
    const out: string[] = [];
    const program = await buildProgram((s) => out.push(s), ['schema']);
    await program.parseAsync(['node', 'ballast', 'schema', '--out', DIR]);
    expect(out).toEqual([`wrote ${path.join(DIR, 'ballast.schema.json')}`]);
    expect(hintedSchema(config)).toBe(path.join(DIR, 'ballast.schema.json'));
    expect(readFileSync(hintedSchema(config), 'utf8')).toBe(readFileSync(path.join(CONFIG_DIR, 'ballast.schema.json'), 'utf8'));
    expect(statSync(hintedSchema(config)).mode & 0o777).toBe(0o644);
  });

  it('the written schema accepts the example config, as the loader does', () => {
    expect(loaderIssues(config)).toEqual([]);
    expect(schemaErrors(hintedSchema(config), config)).toEqual([]);
  });

  it('the written schema refuses a misspelt key and a number written as text, as the loader does', () => {
    const bad = path.join(DIR, 'bad.yaml');
    const text = readFileSync(config, 'utf8');
    expect(text).toMatch(/^ {2}slippageBps: 50 /m);
    writeFileSync(bad, text.replace(/^ {2}slippageBps: 50 /m, '  slippageBps: "50" ').replace(/^schedule:/m, 'schedul:'));
    expect(loaderIssues(bad)).toEqual(expect.arrayContaining(['policy.slippageBps', expect.stringContaining('schedul')]));
    const errors = schemaErrors(hintedSchema(config), bad);
    expect(errors.some((e) => e.startsWith('/policy/slippageBps '))).toBe(true);
    expect(errors.some((e) => e.includes('"additionalProperty":"schedul"'))).toBe(true);
  });

  it('demo.yaml carries the hint too, and the schema beside it accepts it', () => {
    const demo = path.join(CONFIG_DIR, 'demo.yaml');
    expect(hintedSchema(demo)).toBe(path.join(CONFIG_DIR, 'ballast.schema.json'));
    expect(schemaErrors(hintedSchema(demo), demo)).toEqual([]);
  });

  it('`ballast schema --out` refuses a path that is not a directory (exit 2)', async () => {
    expect(await main(['node', 'ballast', 'schema', '--out', path.join(DIR, 'missing')])).toBe(2);
    expect(await main(['node', 'ballast', 'schema', '--out', config])).toBe(2);
  });
});
