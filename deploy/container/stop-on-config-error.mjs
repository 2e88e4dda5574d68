#!/usr/bin/env node
// Entrypoint of the Ballast daemon under Docker Compose (deploy/docker-compose.yml, docker-compose.ha.yml):
//   node stop-on-config-error.mjs <command> [args...]
// runs the command (node /opt/ballast/bin/ballast.mjs daemon), passes SIGTERM, SIGINT and SIGHUP on to it (so
// `docker compose stop` still drains the daemon), and exits with its status, except that exit 2 becomes 0 after one
// line saying why.
//
// Why: exit 2 is a configuration, key file or store error (README "Exit codes"): restarting cannot fix it, and a
// restart loop hides the one line that says what to fix. systemd stops on it (RestartPreventExitStatus=2 in
// deploy/systemd/ballast.service), but Docker's restart policies (no, always, unless-stopped, on-failure[:N];
// https://docs.docker.com/engine/containers/start-containers-automatically/) cannot exclude an exit status. With
// `restart: on-failure` and this mapping, exit 1 (the API or a chain unreachable) and a crash are restarted; exit 2
// stops the container, which `docker compose ps` shows as exited (0) with this line last in its logs.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

const EXIT_CONFIG = 2;
const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  process.stderr.write('usage: stop-on-config-error.mjs <command> [args...]\n');
  process.exit(64); // EX_USAGE
}

const child = spawn(command, args, { stdio: 'inherit' });
// As PID 1 in a container, this process gets the signals meant for the daemon: hand them on. A handler is set, so
// node does not exit on them itself; it exits when the daemon does.
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('error', (error) => {
  process.stderr.write(`stop-on-config-error: cannot start ${command}: ${error.message}\n`);
  process.exit(127);
});
child.on('exit', (code, signal) => {
  if (code === EXIT_CONFIG) {
    process.stderr.write(
      'ballast exited 2 (configuration, key file or store error; the line above says what to fix): not restarting. ' +
        'Fix it, then `docker compose up -d`.\n',
    );
    process.exit(0);
  }
  // Ended by a signal (e.g. SIGKILL by the OOM killer): 128 + its number, as a shell reports it.
  process.exit(code ?? 128 + (constants.signals[signal] ?? 0));
});
