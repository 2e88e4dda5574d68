import { describe, expect, it } from 'vitest';
import { LogSettingError, resolveLogSettings } from '../../../packages/ballast/src/log/logSettings.ts';

describe('resolveLogSettings', () => {
  it('takes the level from --log-level, else BALLAST_LOG_LEVEL, else the config, else info', () => {
    const env = { BALLAST_LOG_LEVEL: 'debug' };
    const config = { level: 'warn' as const };
    expect(resolveLogSettings({ flagLevel: 'trace', env, config, isTty: false }).level).toBe('trace');
    expect(resolveLogSettings({ env, config, isTty: false }).level).toBe('debug');
    expect(resolveLogSettings({ env: { BALLAST_LOG_LEVEL: '' }, config, isTty: false }).level).toBe('warn');
    expect(resolveLogSettings({ env: {}, isTty: false }).level).toBe('info');
    expect(resolveLogSettings({ env: { BALLAST_LOG_LEVEL: ' Error ' }, isTty: false }).level).toBe('error');
  });

  it('picks pretty on a terminal and JSON otherwise, unless the config or BALLAST_LOG_FORMAT says', () => {
    expect(resolveLogSettings({ env: {}, isTty: true }).format).toBe('pretty');
    expect(resolveLogSettings({ env: {}, isTty: false }).format).toBe('json');
    expect(resolveLogSettings({ env: {}, config: { format: 'json' }, isTty: true }).format).toBe('json');
    expect(resolveLogSettings({ env: {}, config: { format: 'pretty' }, isTty: false }).format).toBe('pretty');
    expect(resolveLogSettings({ env: { BALLAST_LOG_FORMAT: 'json' }, config: { format: 'pretty' }, isTty: true }).format).toBe('json');
    expect(resolveLogSettings({ env: { BALLAST_LOG_FORMAT: 'pretty' }, config: { format: 'json' }, isTty: false }).format).toBe('pretty');
  });

  it('turns colour off when NO_COLOR is set to any non-empty value (https://no-color.org)', () => {
    expect(resolveLogSettings({ env: {}, isTty: true }).color).toBe(true);
    expect(resolveLogSettings({ env: { NO_COLOR: '' }, isTty: true }).color).toBe(true);
    expect(resolveLogSettings({ env: { NO_COLOR: '1' }, isTty: true }).color).toBe(false);
    expect(resolveLogSettings({ env: { NO_COLOR: 'false' }, isTty: true }).color).toBe(false); // any value
  });

  it('names the setting and the accepted values for an unknown level or format', () => {
    expect(() => resolveLogSettings({ flagLevel: 'verbose', env: {}, isTty: false })).toThrow(
      new LogSettingError('--log-level', 'verbose', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    );
    expect(() => resolveLogSettings({ env: { BALLAST_LOG_LEVEL: 'loud' }, isTty: false })).toThrow(
      /^BALLAST_LOG_LEVEL is "loud"; use one of fatal, error/,
    );
    expect(() => resolveLogSettings({ env: { BALLAST_LOG_FORMAT: 'text' }, isTty: false })).toThrow(
      'BALLAST_LOG_FORMAT is "text"; use one of json, pretty',
    );
  });
});
