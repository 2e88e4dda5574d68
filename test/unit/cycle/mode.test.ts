/**
 * The run mode (src/cycle/mode.ts): how the operator's keys and flags map to one mode, and what each mode does
 * with a cycle (the kind recorded on its row, whether it signs, whether it is counted).
 */
import { describe, expect, it } from 'vitest';
import { countsCycle, cycleKind, cycleRun, processMode, signs, transferMode } from '../../../packages/ballast/src/cycle/mode.ts';

describe('processMode', () => {
  it('is monitor when the config or the flag says monitor-only, else execute', () => {
    expect(processMode(false, undefined)).toBe('execute');
    expect(processMode(false, false)).toBe('execute');
    expect(processMode(true, undefined)).toBe('monitor');
    expect(processMode(false, true)).toBe('monitor');
    expect(processMode(true, true)).toBe('monitor');
  });
});

describe('cycleRun and cycleKind', () => {
  it('runs `plan` as plan whatever the process mode', () => {
    expect(cycleRun('plan', 'execute')).toEqual({ mode: 'plan' });
    expect(cycleRun('plan', 'monitor')).toEqual({ mode: 'plan' });
  });

  it('runs `once` and `daemon` in the process mode, recording the trigger only when it may sign', () => {
    expect(cycleRun('once', 'execute')).toEqual({ mode: 'execute', trigger: 'once' });
    expect(cycleRun('daemon', 'execute')).toEqual({ mode: 'execute', trigger: 'daemon' });
    expect(cycleRun('daemon', 'monitor')).toEqual({ mode: 'monitor' });
    expect(cycleKind(cycleRun('daemon', 'execute'))).toBe('daemon');
    expect(cycleKind(cycleRun('once', 'execute'))).toBe('once');
    expect(cycleKind(cycleRun('once', 'monitor'))).toBe('plan');
    expect(cycleKind(cycleRun('plan', 'execute'))).toBe('plan');
  });
});

describe('transferMode', () => {
  it('judges a dry run like monitor-only mode', () => {
    expect(transferMode(true)).toBe('monitor');
    expect(transferMode(false)).toBe('execute');
  });
});

describe('signs and countsCycle', () => {
  it('signs only in execute mode; counts every cycle but a plan one', () => {
    expect([signs('execute'), signs('monitor'), signs('plan')]).toEqual([true, false, false]);
    expect([countsCycle('execute'), countsCycle('monitor'), countsCycle('plan')]).toEqual([true, true, false]);
  });
});
