/**
 * HTTP routes of the withdrawal endpoints, registered with the sandbox API (`createSandboxApi`'s extra
 * routes): public POST /withdrawals/attest-deposit, POST /withdrawals/request, GET /withdrawals/status
 * (docs/relay-contract.md "Withdrawal endpoints"; no API key: authorisation is the owner's signature) and the admin
 * GET /_sandbox/hub-balances.
 */
import type { SandboxApiRoutes } from '../api/server.ts';
import { readJsonBody } from '../api/http.ts';
import type { WithdrawalService } from './service.ts';

/** The route table of a withdrawal service. */
export function withdrawalRoutes(service: WithdrawalService): SandboxApiRoutes {
  return {
    public: {
      'POST /withdrawals/attest-deposit': async (_s, req) => service.attest(await readJsonBody(req)),
      'POST /withdrawals/request': async (_s, req) => service.request(await readJsonBody(req)),
      'GET /withdrawals/status': (_s, _req, url) => service.status(url.searchParams),
    },
    admin: {
      'GET /_sandbox/hub-balances': () => service.hubBalances(),
    },
  };
}
