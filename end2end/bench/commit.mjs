// Benchmark (not a test): one round of a stack's biggest writes against a running server
// (FERRY_URL, FERRY_SERVER_PID; scripts/bench-pair.sh starts one per round): the upload of a
// generated N-resource stack (PAIR_STACK, 100,000), a preview of PAIR_IMPORTS (10,000)
// RandomInteger imports into it, and its commit. Prints one JSON line: each request's wall time
// and the server's CPU time over it (utime + stime from /proc), in ms, and beside them the CPU
// time Python's `json.loads` takes to read the same file in the same round (`jsonLoads`: the
// floor the upload's CPU is held to). With PAIR_CALLGRIND set (bench-pair.sh's `--callgrind`,
// the server running under callgrind), callgrind counts the upload's request, the preview's and
// the commit's, each alone: switched on just before it, off and written out (dumps 1, 2 and 3)
// just after.
import { execFileSync } from 'node:child_process';
import { api } from '../lib/browser.mjs';
import { jsonLoadsMs, measured as measuredBy } from '../lib/cpu.mjs';
import { generateStack, importSpec } from '../lib/generate.mjs';

const N = Number(process.env.PAIR_STACK ?? 100000);
const IMPORTS = Number(process.env.PAIR_IMPORTS ?? 10000);
const PID = process.env.FERRY_SERVER_PID;
if (!PID) throw new Error('set FERRY_SERVER_PID to the server\'s process ID: its CPU time is one of the figures');
const measured = (fn) => measuredBy(PID, fn);

/** Switches callgrind's counting in the server (`on`, or `off` and write the count out). */
function callgrind(phase) {
  if (!process.env.PAIR_CALLGRIND) return;
  execFileSync('callgrind_control', ['-i', phase, PID], { stdio: 'ignore' });
  if (phase === 'off') execFileSync('callgrind_control', ['-d', PID], { stdio: 'ignore' });
}

const run = Date.now();
const text = JSON.stringify(generateStack(N, { seed: N, project: 'pair', stack: `n${N}-${run}` }));
const jsonLoads = { ms: null, cpuMs: jsonLoadsMs(text) };
callgrind('on');
const upload = await measured(() => api('POST', `/api/v1/stacks?name=${encodeURIComponent(`bench/pair/n${N}-${run}`)}`, text));
callgrind('off');
if (upload.value.resources !== N) throw new Error(`the upload holds ${upload.value.resources} resources, not ${N}`);
callgrind('on');
const preview = await measured(() => api('POST', `/api/v1/stacks/${upload.value.id}/previews`, importSpec(IMPORTS, 'pair')));
callgrind('off');
callgrind('on');
const commit = await measured(() => api('POST', `/api/v1/previews/${preview.value.id}/commit`, ''));
callgrind('off');
if (commit.value.added !== IMPORTS) throw new Error(`the commit added ${commit.value.added}, not ${IMPORTS}`);
const figures = ([name, m]) => [name, { ms: m.ms, cpuMs: m.cpuMs }];
console.log(JSON.stringify(Object.fromEntries([['jsonLoads', jsonLoads], ['upload', upload], ['preview', preview], ['commit', commit]].map(figures))));
