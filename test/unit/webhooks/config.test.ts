/**
 * The `webhooks:` config section (src/config/webhooksSchema.ts): defaults when absent, shape checks, and
 * webhooks enabled without `relay.apiKey` (their HMAC secret) refused naming both fields and the fix.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { API_KEY, ENV, baseConfig, issueLines, loadErrorIn, tempDirPerTest } from '../config/helpers.ts';

const tmp = tempDirPerTest();

describe('webhooks config', () => {
  it('is off with defaults when the section is absent', () => {
    const config = loadConfig(tmp.write(baseConfig()), ENV);
    expect(config.webhooks).toEqual({ enabled: false, path: '/webhooks/relay', toleranceSec: 300, maxBodyBytes: 65_536 });
  });

  it('loads an enabled receiver on its own address', () => {
    const c = baseConfig();
    c.webhooks = { enabled: true, listen: '0.0.0.0:8080', path: '/hooks/relay', toleranceSec: 120, maxBodyBytes: 8192 };
    const config = loadConfig(tmp.write(c), ENV);
    expect(config.webhooks).toEqual({ enabled: true, listen: '0.0.0.0:8080', path: '/hooks/relay', toleranceSec: 120, maxBodyBytes: 8192 });
    expect(config.relay.apiKey).toBe(API_KEY);
  });

  it('refuses webhooks enabled without relay.apiKey, naming both fields and the fix', () => {
    const c = baseConfig();
    delete c.relay.apiKey;
    c.webhooks = { enabled: true };
    const lines = issueLines(loadErrorIn(tmp, c, ENV));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^webhooks\.enabled: .*relay\.apiKey is not set; set relay\.apiKey: "\$\{RELAY_API_KEY\}".* or set webhooks\.enabled: false$/,
    );
  });

  it('refuses webhooks.listen equal to the metrics address, saying how to share that server', () => {
    const c = baseConfig();
    c.metrics = { listen: '127.0.0.1:9500' };
    c.webhooks = { enabled: true, listen: '127.0.0.1:9500' };
    expect(issueLines(loadErrorIn(tmp, c, ENV))).toEqual([
      'webhooks.listen: is metrics.listen (127.0.0.1:9500); remove webhooks.listen to serve webhooks on the metrics server, or give it another port',
    ]);
  });

  it('accepts webhooks disabled without an API key', () => {
    const c = baseConfig();
    delete c.relay.apiKey;
    c.webhooks = { enabled: false };
    expect(loadConfig(tmp.write(c), ENV).webhooks?.enabled).toBe(false);
  });

  it.each([
    ['listen without a port', { listen: '0.0.0.0' }, /^webhooks\.listen: expected host:port/],
    ['a port above 65535', { listen: '127.0.0.1:70000' }, /^webhooks\.listen: port must be between 0 and 65535/],
    ['a path without a leading slash', { path: 'webhooks' }, /^webhooks\.path: expected a URL path starting with \//],
    ['the metrics path', { path: '/metrics' }, /^webhooks\.path: must differ from \/metrics and \/healthz/],
    ['a zero tolerance', { toleranceSec: 0 }, /^webhooks\.toleranceSec: /],
    ['an unknown key', { secret: 'x' }, /^webhooks\.secret: unknown key/],
  ])('refuses %s', (_name, section, pattern) => {
    const c = baseConfig();
    c.webhooks = { enabled: true, ...section };
    const lines = issueLines(loadErrorIn(tmp, c, ENV));
    expect(lines.some((l) => pattern.test(l))).toBe(true);
  });
});
