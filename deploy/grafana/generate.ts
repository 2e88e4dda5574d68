/**
 * `npm run dashboard`: writes deploy/grafana/ballast-dashboard.json from deploy/grafana/dashboard.ts.
 * `--check` exits 1 instead when the committed file differs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDashboard } from './dashboard.ts';

/** Where the generated dashboard lives (mounted by docker-compose into Grafana's provisioned folder). */
export const DASHBOARD_JSON = path.join(path.dirname(fileURLToPath(import.meta.url)), 'ballast-dashboard.json');

/** The file contents for the dashboard: 2-space JSON and a final newline. */
export function dashboardJson(): string {
  return `${JSON.stringify(buildDashboard(), null, 2)}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = dashboardJson();
  if (process.argv.includes('--check')) {
    if (readFileSync(DASHBOARD_JSON, 'utf8') !== text) {
      console.error(`${DASHBOARD_JSON} is out of date: run npm run dashboard`);
      process.exit(1);
    }
  } else {
    writeFileSync(DASHBOARD_JSON, text);
    console.log(`wrote ${DASHBOARD_JSON}`);
  }
}
