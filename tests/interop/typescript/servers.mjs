// The servers under test: parsing FERRITE_HTTP_SERVERS, starting each one on a free port and
// stopping its whole process group again.
//
// FERRITE_HTTP_SERVERS is a `;`-separated list of `name=command line` entries. The command line
// is split like a POSIX shell (shlex) would, runs with the repository root as its working
// directory (so relative paths resolve there) and gets `--port <free port>` appended; the server
// must then serve Streamable HTTP at http://127.0.0.1:<port>/mcp.

import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

export const ENV_VAR = 'FERRITE_HTTP_SERVERS';
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** How long a server may take from spawn until its port accepts connections. */
const STARTUP_TIMEOUT_MS = Number(process.env.FERRITE_HTTP_STARTUP_TIMEOUT_MS ?? 20_000);
/** How long a server gets to exit after SIGTERM before its process group is killed. */
const STOP_GRACE_MS = 2_000;
/** How much of a server's stdout/stderr is kept for failure messages. */
const OUTPUT_TAIL_BYTES = 4_096;

/** Splits a command line the way Python's shlex.split (POSIX mode) does. */
export function splitCommandLine(line) {
    const words = [];
    let word = '';
    let inWord = false;
    for (let i = 0; i < line.length; i++) {
        const c = line[i];
        if (c === "'") {
            const end = line.indexOf("'", i + 1);
            if (end < 0) throw new Error(`unterminated ' in ${JSON.stringify(line)}`);
            word += line.slice(i + 1, end);
            inWord = true;
            i = end;
        } else if (c === '"') {
            inWord = true;
            for (i++; ; i++) {
                if (i >= line.length) throw new Error(`unterminated " in ${JSON.stringify(line)}`);
                const d = line[i];
                if (d === '"') break;
                if (d === '\\' && i + 1 < line.length && '\\"$`\n'.includes(line[i + 1])) {
                    i++;
                    if (line[i] !== '\n') word += line[i];
                } else {
                    word += d;
                }
            }
        } else if (c === '\\') {
            if (i + 1 >= line.length) throw new Error(`trailing \\ in ${JSON.stringify(line)}`);
            i++;
            if (line[i] !== '\n') word += line[i];
            inWord = true;
        } else if (/\s/.test(c)) {
            if (inWord) words.push(word);
            word = '';
            inWord = false;
        } else {
            word += c;
            inWord = true;
        }
    }
    if (inWord) words.push(word);
    return words;
}

/**
 * Parses the FERRITE_HTTP_SERVERS value into [{name, argv}]. A malformed entry throws: it is a
 * usage error, never a silent skip.
 */
export function parseServers(spec) {
    const servers = [];
    for (const raw of (spec ?? '').split(';')) {
        const entry = raw.trim();
        if (!entry) continue;
        const eq = entry.indexOf('=');
        const name = eq < 0 ? '' : entry.slice(0, eq).trim();
        const argv = eq < 0 ? [] : splitCommandLine(entry.slice(eq + 1));
        if (!name || argv.length === 0) {
            throw new Error(`${ENV_VAR}: entry ${JSON.stringify(entry)} is not of the form name=command line`);
        }
        if (servers.some((s) => s.name === name)) {
            throw new Error(`${ENV_VAR}: server name ${JSON.stringify(name)} appears twice`);
        }
        servers.push({ name, argv });
    }
    return servers;
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
async function freePort() {
    const probe = net.createServer();
    await new Promise((resolve, reject) => {
        probe.once('error', reject);
        probe.listen(0, '127.0.0.1', resolve);
    });
    const { port } = probe.address();
    await new Promise((resolve) => probe.close(resolve));
    return port;
}

function portAcceptsConnections(port) {
    return new Promise((resolve) => {
        const socket = net.connect({ host: '127.0.0.1', port });
        socket.once('connect', () => {
            socket.destroy();
            resolve(true);
        });
        socket.once('error', () => {
            socket.destroy();
            resolve(false);
        });
    });
}

/** Every process group started here, so that even an aborted run leaves none behind. */
const liveGroups = new Set();
process.once('exit', () => {
    for (const pgid of liveGroups) {
        try {
            process.kill(-pgid, 'SIGKILL');
        } catch {
            // already gone
        }
    }
});

/**
 * Starts `server` on a free port in a process group of its own and waits until the port accepts
 * connections. Returns {url, port, stop(), output()}; stop() ends the whole process group.
 */
export async function startServer(server) {
    const port = await freePort();
    const argv = [...server.argv, '--port', String(port)];
    const child = spawn(argv[0], argv.slice(1), {
        cwd: REPO_ROOT,
        detached: true, // its own process group: stop() reaches wrappers' children too
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid !== undefined) liveGroups.add(child.pid);

    let tail = '';
    const keep = (chunk) => {
        tail = (tail + chunk.toString('utf8')).slice(-OUTPUT_TAIL_BYTES);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const output = () => tail.trim() || '(none)';

    let exit = null;
    const exited = new Promise((resolve) => {
        child.once('exit', (code, signal) => {
            exit = { code, signal };
            resolve();
        });
        child.once('error', (error) => {
            exit = { error };
            resolve();
        });
    });

    const stop = async () => {
        if (!liveGroups.has(child.pid)) return;
        const signalGroup = (signal) => {
            try {
                process.kill(-child.pid, signal);
            } catch {
                // the group is already gone
            }
        };
        signalGroup('SIGTERM');
        const grace = new AbortController();
        await Promise.race([exited, sleep(STOP_GRACE_MS, undefined, { signal: grace.signal }).catch(() => {})]);
        grace.abort(); // a pending grace timer would keep the test process alive
        signalGroup('SIGKILL'); // anything left in the group, leader or not
        liveGroups.delete(child.pid);
        child.stdout.destroy();
        child.stderr.destroy();
    };

    const describe = `${JSON.stringify(argv.join(' '))} (cwd ${REPO_ROOT})`;
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    for (;;) {
        if (exit) {
            await stop();
            const how = exit.error ? `failed to start: ${exit.error.message}` : `exited (code ${exit.code}, signal ${exit.signal})`;
            throw new Error(`server ${server.name}: ${describe} ${how} before serving port ${port}; its output:\n${output()}`);
        }
        if (await portAcceptsConnections(port)) break;
        if (Date.now() > deadline) {
            await stop();
            throw new Error(
                `server ${server.name}: ${describe} did not accept connections on port ${port} within ${STARTUP_TIMEOUT_MS} ms; its output:\n${output()}`,
            );
        }
        await sleep(25);
    }
    return { url: `http://127.0.0.1:${port}/mcp`, port, stop, output };
}
