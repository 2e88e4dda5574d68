import { describe, expect, it } from 'vitest';
import { resolveStatusPath } from '../../../packages/ballast/src/relay/statusPath.ts';

const ID = '0x00180d75faabaabf3dcbbf5341aa6b17d8ce6df9ea71856892f8b2729c32c167';
const FALLBACK = `/intents/status/v3?requestId=${ID}`;

describe('resolveStatusPath', () => {
  it('uses /intents/status/v3 when no check endpoint is given', () => {
    expect(resolveStatusPath(ID)).toEqual({ route: '/intents/status/v3', pathAndQuery: FALLBACK });
  });

  it.each([`/intents/status/v3?requestId=${ID}`, `/intents/status?requestId=${ID}`, `/intents/status/v2?requestId=${ID}`])(
    'follows %s',
    (endpoint) => {
      const r = resolveStatusPath(ID, endpoint);
      expect(r.pathAndQuery).toBe(endpoint);
      expect(r.rejected).toBeUndefined();
    },
  );

  it.each([
    ['absolute URL', `https://evil.example/intents/status/v3?requestId=${ID}`, 'not a relative path'],
    ['protocol-relative', `//evil.example/intents/status/v3?requestId=${ID}`, 'not a relative path'],
    ['other path', `/withdrawals/status?requestId=${ID}`, 'not under /intents/status'],
    ['traversal', `/intents/status/../withdrawals?requestId=${ID}`, 'not under /intents/status'],
    ['encoded traversal', `/intents/status/%2e%2e/x?requestId=${ID}`, 'characters'],
    ['backslash', `/intents/status\\..\\x?requestId=${ID}`, 'characters'],
    ['userinfo', `/intents/status/v3@evil?requestId=${ID}`, 'characters'],
    ['fragment', `/intents/status/v3?requestId=${ID}#x`, 'characters'],
    ['extra parameter', `/intents/status/v3?requestId=${ID}&redirect=1`, 'exactly requestId'],
    ['no query', '/intents/status/v3', 'exactly requestId'],
    ['other request', '/intents/status/v3?requestId=0x01', 'differs'],
  ])('rejects %s', (_name, endpoint, why) => {
    const r = resolveStatusPath(ID, endpoint);
    expect(r.pathAndQuery).toBe(FALLBACK);
    expect(r.rejected).toContain(why);
  });
});
