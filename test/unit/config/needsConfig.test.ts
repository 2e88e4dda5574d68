/**
 * `policy.needsHorizonSec`, `policy.needsGraceSec` and the `needs:` section (src/config/needsSchema.ts): defaults,
 * bounds named with their fix, the token kept secret (non-enumerable, never in an error, a warning when written
 * literally), and `needs.listen` refused where it serves nothing or collides with another server.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { buildConfigJsonSchema } from '../../../packages/ballast/src/config/jsonSchema.ts';
import { ENV, baseConfig, issueLines, loadErrorIn, tempDirPerTest } from './helpers.ts';

const tmp = tempDirPerTest();
const TOKEN = 'needs-token-0123456789abcdef';
const NEEDS_ENV = { ...ENV, BALLAST_NEEDS_TOKEN: TOKEN };

function withNeeds(needs: unknown, policy: Record<string, unknown> = {}) {
  const config = baseConfig();
  if (needs !== undefined) config.needs = needs;
  Object.assign(config.policy as Record<string, unknown>, policy);
  return config;
}

describe('policy.needsHorizonSec and policy.needsGraceSec', () => {
  it('default to a day and 15 minutes; 0 is allowed (needs not planned, closed at their due time)', () => {
    const loaded = loadConfig(tmp.write(withNeeds(undefined)), ENV);
    expect([loaded.policy.needsHorizonSec, loaded.policy.needsGraceSec]).toEqual([86_400, 900]);
    const zero = loadConfig(tmp.write(withNeeds(undefined, { needsHorizonSec: 0, needsGraceSec: 0 })), ENV);
    expect([zero.policy.needsHorizonSec, zero.policy.needsGraceSec]).toEqual([0, 0]);
  });

  it('name the field and the bound when out of range or not whole seconds', () => {
    const lines = issueLines(loadErrorIn(tmp, withNeeds(undefined, { needsHorizonSec: 1.5, needsGraceSec: 8 * 86_400 }), ENV)).join('\n');
    expect(lines).toContain('policy.needsHorizonSec: needsHorizonSec must be a whole number of seconds');
    expect(lines).toContain('policy.needsGraceSec: needsGraceSec must be between 0 and 604800 seconds (7 days)');
    const negative = issueLines(loadErrorIn(tmp, withNeeds(undefined, { needsHorizonSec: -1 }), ENV)).join('\n');
    expect(negative).toContain('policy.needsHorizonSec: needsHorizonSec must be between 0 and 7776000 seconds (90 days)');
  });
});

describe('needs:', () => {
  it('is absent unless configured; the token is loaded but not enumerable, so not in JSON or a spread', () => {
    expect(loadConfig(tmp.write(withNeeds(undefined)), ENV).needs).toBeUndefined();
    const loaded = loadConfig(tmp.write(withNeeds({ token: '${BALLAST_NEEDS_TOKEN}', listen: '127.0.0.1:9465' })), NEEDS_ENV);
    expect(loaded.needs?.token).toBe(TOKEN);
    expect(loaded.needs?.listen).toBe('127.0.0.1:9465');
    expect(JSON.stringify(loaded)).not.toContain(TOKEN);
    expect({ ...loaded.needs }).toEqual({ listen: '127.0.0.1:9465' });
    expect(loaded.warnings).toEqual([]);
  });

  it('warns when the token is written literally', () => {
    const loaded = loadConfig(tmp.write(withNeeds({ token: TOKEN })), ENV);
    expect(loaded.warnings).toEqual(['needs.token is written literally in the config file; prefer ${BALLAST_NEEDS_TOKEN}']);
  });

  it('refuses a short token without showing it, and an unknown key', () => {
    const err = loadErrorIn(tmp, withNeeds({ token: '${BALLAST_NEEDS_TOKEN}', port: 1 }), { ...ENV, BALLAST_NEEDS_TOKEN: 'short-secret' });
    const lines = issueLines(err).join('\n');
    expect(lines).toContain('needs.token: token must be at least 16 characters; generate one (e.g. openssl rand -hex 32)');
    expect(lines).toContain('needs.port: unknown key; remove it or fix the spelling (allowed: token, listen)');
    expect(err.message).not.toContain('short-secret');
  });

  it('refuses a token with spaces: it could not travel in the Authorization header', () => {
    const lines = issueLines(
      loadErrorIn(tmp, withNeeds({ token: '${BALLAST_NEEDS_TOKEN}' }), { ...ENV, BALLAST_NEEDS_TOKEN: 'two words of token text' }),
    );
    expect(lines).toEqual(['needs.token: token must be printable ASCII without spaces (it travels as Authorization: Bearer <token>)']);
  });

  it('refuses listen without a token, on the metrics address, or on the webhook receiver address', () => {
    expect(issueLines(loadErrorIn(tmp, withNeeds({ listen: '127.0.0.1:9465' }), ENV))).toEqual([
      'needs.listen: is set but needs.token is not, so no API is served; set token: "${BALLAST_NEEDS_TOKEN}" or remove listen',
    ]);
    const onMetrics = issueLines(loadErrorIn(tmp, withNeeds({ token: '${BALLAST_NEEDS_TOKEN}', listen: '127.0.0.1:9464' }), NEEDS_ENV));
    expect(onMetrics.join('\n')).toContain('needs.listen: is metrics.listen (127.0.0.1:9464); remove needs.listen');
    const config = withNeeds({ token: '${BALLAST_NEEDS_TOKEN}', listen: '0.0.0.0:8080' });
    config.webhooks = { enabled: true, listen: '0.0.0.0:8080' };
    expect(issueLines(loadErrorIn(tmp, config, NEEDS_ENV)).join('\n')).toContain('needs.listen: is webhooks.listen (0.0.0.0:8080)');
    const badPort = issueLines(loadErrorIn(tmp, withNeeds({ token: '${BALLAST_NEEDS_TOKEN}', listen: 'localhost' }), NEEDS_ENV));
    expect(badPort.join('\n')).toContain('needs.listen: listen must be host:port such as 127.0.0.1:9465');
  });

  it('describes every field in the JSON Schema', () => {
    const schema = buildConfigJsonSchema() as {
      properties: Record<string, { description?: string; properties?: Record<string, { description?: string }> }>;
    };
    const policy = schema.properties.policy!.properties!;
    expect(policy.needsHorizonSec?.description).toMatch(/0 disables needs planning/);
    expect(policy.needsGraceSec?.description).toMatch(/closed/);
    const needs = schema.properties.needs!;
    expect(needs.description).toMatch(/needs HTTP API/);
    expect(needs.properties?.token?.description).toMatch(/\$\{BALLAST_NEEDS_TOKEN\}/);
    expect(needs.properties?.listen?.description).toMatch(/metrics server/);
  });
});
