/**
 * Telling a PostgreSQL URL from a SQLite path in `store:`, and keeping the URL's password out of messages.
 */
import { describe, expect, it } from 'vitest';
import { isPostgresUrl, redactStoreUrl } from '../../../../packages/ballast/src/config/storeUrl.ts';

describe('isPostgresUrl', () => {
  it('accepts both libpq URI schemes, in any case, and nothing else', () => {
    expect(isPostgresUrl('postgres://db/ballast')).toBe(true);
    expect(isPostgresUrl('postgresql://u:p@db:5432/ballast?sslmode=require')).toBe(true);
    expect(isPostgresUrl('POSTGRES://db/x')).toBe(true);
    for (const path of ['./ballast.db', '/var/lib/ballast/ballast.db', 'postgres.db', 'postgres:/db', ':memory:', 'sqlite://x']) {
      expect(isPostgresUrl(path), path).toBe(false);
    }
  });
});

describe('redactStoreUrl', () => {
  it('masks the password in the userinfo and in query parameters, and leaves paths alone', () => {
    expect(redactStoreUrl('postgres://ballast:s3cret@db:5432/ballast')).toBe('postgres://ballast:***@db:5432/ballast');
    expect(redactStoreUrl('postgresql://ballast@db/ballast?password=s3cret&sslmode=require')).toBe(
      'postgresql://ballast@db/ballast?password=***&sslmode=require',
    );
    expect(redactStoreUrl('postgres://db/ballast')).toBe('postgres://db/ballast');
    expect(redactStoreUrl('./s3cret.db')).toBe('./s3cret.db');
  });
});
