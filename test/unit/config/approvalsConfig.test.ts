/**
 * `policy.approvals` (src/config/approvalsSchema.ts): loads as written with its default expiry; every bad value
 * is named with its field and fix (quorum above the number of approvers, keys that do not parse, one key for two
 * approvers, unknown assets).
 */
import { describe, expect, it } from 'vitest';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { ENV, baseConfig, issueLines, loadErrorIn, tempDirPerTest } from './helpers.ts';

const tmp = tempDirPerTest();
const ALICE = privateKeyToAccount(generatePrivateKey()).address;
const BOB = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM'; // 32 bytes in base58

function withApprovals(approvals: unknown) {
  const config = baseConfig();
  (config.policy as Record<string, unknown>).approvals = approvals;
  return config;
}

describe('policy.approvals', () => {
  it('loads as written; expiresAfterSec defaults to a day', () => {
    const approvals = { aboveUsd: '10000', required: 2, approvers: { alice: ALICE, bob: BOB }, assets: { USDC: { aboveUsd: '50000' } } };
    const config = loadConfig(tmp.write(withApprovals(approvals)), ENV);
    expect(config.policy.approvals).toEqual({ ...approvals, expiresAfterSec: 86_400, addressBook: 'off' });
  });

  it('takes addressBook required or off, and names the fix for anything else', () => {
    const approvals = { aboveUsd: '1', required: 1, approvers: { alice: ALICE } };
    expect(loadConfig(tmp.write(withApprovals({ ...approvals, addressBook: 'required' })), ENV).policy.approvals?.addressBook).toBe(
      'required',
    );
    const lines = issueLines(loadErrorIn(tmp, withApprovals({ ...approvals, addressBook: 'yes' }), ENV)).join('\n');
    expect(lines).toContain('policy.approvals.addressBook: addressBook must be "required" or "off"');
  });

  it('is absent unless configured', () => {
    expect(loadConfig(tmp.write(baseConfig()), ENV).policy.approvals).toBeUndefined();
  });

  it('names the field and the fix for each bad value', () => {
    const lines = issueLines(
      loadErrorIn(
        tmp,
        withApprovals({
          aboveUsd: 10000,
          required: 3,
          approvers: { alice: ALICE, bob: 'not-a-key', carol: ALICE.toLowerCase() },
          expiresAfterSec: 5,
          assets: { USDC: { required: 4 } },
        }),
        ENV,
      ),
    ).join('\n');
    expect(lines).toContain('policy.approvals.aboveUsd: write aboveUsd as a quoted USD decimal string');
    expect(lines).toContain('policy.approvals.approvers.bob: expected an EVM address (0x + 40 hex digits) or a base58 ed25519 public key');
    expect(lines).toContain('policy.approvals.expiresAfterSec: expiresAfterSec must be at least 60');
  });

  it('refuses a quorum above the number of approvers, a key shared by two approvers, and unknown assets', () => {
    const quorum = issueLines(
      loadErrorIn(tmp, withApprovals({ aboveUsd: '1', required: 2, approvers: { alice: ALICE }, assets: { USDC: { required: 3 } } }), ENV),
    ).join('\n');
    expect(quorum).toContain('policy.approvals.required: required 2 is more than the 1 approver(s)');
    expect(quorum).toContain('policy.approvals.assets.USDC.required: required 3 is more than the 1 approver(s)');
    const shared = issueLines(
      loadErrorIn(tmp, withApprovals({ aboveUsd: '1', required: 1, approvers: { alice: ALICE, carol: ALICE.toLowerCase() } }), ENV),
    ).join('\n');
    expect(shared).toContain('policy.approvals.approvers.carol: the same key as approver "alice"');
    const unknown = issueLines(
      loadErrorIn(tmp, withApprovals({ aboveUsd: '1', required: 1, approvers: { alice: ALICE }, assets: { DAI: { aboveUsd: '5' } } }), ENV),
    );
    expect(unknown).toContain('policy.approvals.assets.DAI: unknown asset "DAI"; use a name defined under assets: or remove the entry');
  });

  it('takes a threshold and quorum per policy.routes entry, refused without policy.approvals or above the approvers', () => {
    const routed = withApprovals({ aboveUsd: '10000', required: 1, approvers: { alice: ALICE, bob: BOB } });
    routed.policy.routes = [{ from: 'base', to: '*', approvals: { aboveUsd: '500', required: 2 } }];
    expect(loadConfig(tmp.write(routed), ENV).policy.routes?.[0]?.approvals).toEqual({ aboveUsd: '500', required: 2 });

    const orphan = baseConfig();
    orphan.policy.routes = [{ from: 'base', to: '*', approvals: { aboveUsd: '500' } }];
    expect(issueLines(loadErrorIn(tmp, orphan, ENV)).join('\n')).toContain(
      'policy.routes[0].approvals: sign-off rules for a route need policy.approvals',
    );
    const unreachable = withApprovals({ aboveUsd: '1', required: 1, approvers: { alice: ALICE } });
    unreachable.policy.routes = [{ from: 'base', to: '*', approvals: { required: 2 } }];
    expect(issueLines(loadErrorIn(tmp, unreachable, ENV)).join('\n')).toContain(
      'policy.routes[0].approvals.required: 2 sign-offs cannot be reached: policy.approvals lists 1 approver(s)',
    );
  });

  it('takes validators with validateAboveUsd, each with its url, secret, key and a default timeout; one without the other is refused', () => {
    const validators = { risk: { url: 'https://validator.example/check', secret: 'validator-secret-0123456789', key: ALICE } };
    const config = withApprovals({ aboveUsd: '1', required: 1, approvers: { bob: BOB }, validateAboveUsd: '5000', validators });
    expect(loadConfig(tmp.write(config), ENV).policy.approvals?.validators).toEqual({ risk: { ...validators.risk, timeoutMs: 5_000 } });
    const lonely = issueLines(
      loadErrorIn(tmp, withApprovals({ aboveUsd: '1', required: 1, approvers: { bob: BOB }, validators }), ENV),
    ).join('\n');
    expect(lonely).toContain('policy.approvals.validateAboveUsd: validators are listed but validateAboveUsd is not set');
    const bad = issueLines(
      loadErrorIn(
        tmp,
        withApprovals({
          aboveUsd: '1',
          required: 1,
          approvers: { bob: BOB },
          validateAboveUsd: '1',
          validators: { risk: { url: 'ftp://x', secret: 'short', key: 'nope' } },
        }),
        ENV,
      ),
    ).join('\n');
    expect(bad).toContain('policy.approvals.validators.risk.url: url must be an http(s) URL of the validator');
    expect(bad).toContain('policy.approvals.validators.risk.secret: secret must be at least 16 characters');
    expect(bad).toContain('policy.approvals.validators.risk.key: expected an EVM address');
  });
});
