import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLogger, REDACTED } from '../../../packages/ballast/src/log/logger.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** A destination collecting what the logger writes. */
function sink(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  });
  return { stream, text: () => chunks.join('') };
}

const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

describe('createLogger', () => {
  it('writes JSON lines with secret fields censored', () => {
    const out = sink();
    const log = createLogger({ destination: out.stream, level: 'debug' });
    log.child({ component: 'test' }).debug(
      {
        privateKey: KEY,
        wallet: { privateKey: KEY, secretKey: 'sk', wif: 'w' },
        headers: { 'x-api-key': 'k', authorization: 'Basic x' },
        relay: { apiKey: 'k2' },
      },
      'hello',
    );
    const line = JSON.parse(out.text().trim()) as Record<string, unknown>;
    // The level by name (jq and log shippers read it without pino's number table).
    expect(line).toMatchObject({ level: 'debug', app: 'ballast', component: 'test', msg: 'hello', privateKey: REDACTED });
    expect(line.wallet).toEqual({ privateKey: REDACTED, secretKey: REDACTED, wif: REDACTED });
    expect(line.headers).toEqual({ 'x-api-key': REDACTED, authorization: REDACTED });
    expect(line.relay).toEqual({ apiKey: REDACTED });
  });

  it('scrubs secret values from any field and from messages', () => {
    const out = sink();
    const apiKey = 'relay-key-"quoted"-1234';
    const log = createLogger({ destination: out.stream, scrub: [apiKey, 'short'] });
    log.error({ err: new Error(`request failed with key ${apiKey}`), url: `https://x/?k=${apiKey}` }, `sent ${apiKey}`);
    const text = out.text();
    expect(text).not.toContain('relay-key-');
    expect(text.match(/\[redacted\]/g)).toHaveLength(4); // err.message, err.stack, url, msg
    expect(JSON.parse(text.trim()).msg).toBe(`sent ${REDACTED}`);
  });

  it('writes pino-pretty lines, redacted, when the format is pretty', () => {
    const out = sink();
    createLogger({ destination: out.stream, format: 'pretty', level: 'trace', scrub: ['secret-value-123'] }).trace(
      { privateKey: KEY, chainId: 1 },
      'secret-value-123 read',
    );
    const text = out.text();
    expect(text).toMatch(/TRACE.*\[redacted\] read/);
    expect(text).toContain('chainId: 1');
    expect(text).not.toContain(KEY.slice(2));
    expect(text).not.toMatch(/^\{/);
    expect(text).not.toContain('\u001b['); // no colours: the destination is not a terminal
  });

  it('colours pretty lines on a terminal, and never when NO_COLOR asks for none', () => {
    const terminal = () => {
      const out = sink();
      return { ...out, stream: Object.assign(out.stream, { isTTY: true }) }; // what tty.WriteStream sets
    };
    const coloured = terminal();
    createLogger({ destination: coloured.stream, format: 'pretty' }).warn('low gas');
    expect(coloured.text()).toContain('\u001b[');
    const plain = terminal();
    createLogger({ destination: plain.stream, format: 'pretty', color: false }).warn('low gas');
    expect(plain.text()).toMatch(/WARN.*low gas/);
    expect(plain.text()).not.toContain('\u001b[');
  });

  it('loads pino-pretty only when the pretty format is used', () => {
    // A fresh process: import the logger, log JSON, then pretty, and look at Node's CommonJS module cache.
    const script = `
      import { createRequire } from 'node:module';
      import { Writable } from 'node:stream';
      const { createLogger } = await import(${JSON.stringify(path.join(ROOT, 'packages/ballast/src/log/logger.ts'))});
      const cache = createRequire(import.meta.url).cache;
      const loaded = () => Object.keys(cache).some((k) => k.includes('/node_modules/pino-pretty/'));
      const sink = new Writable({ write(_c, _e, cb) { cb(); } });
      createLogger({ destination: sink }).info('json');
      const afterJson = loaded();
      createLogger({ destination: sink, format: 'pretty' }).info('pretty');
      console.log(JSON.stringify({ afterJson, afterPretty: loaded() }));
    `;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim())).toEqual({ afterJson: false, afterPretty: true });
  });
});
