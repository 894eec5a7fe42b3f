// CPU time, for the benchmarks' server figures: the server's own (utime + stime of its process,
// from /proc), and the floor an upload's is held to, Python's `json.loads` of the same text.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

/** Process `pid`'s CPU time so far (user and system), in ms. */
export function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command's closing parenthesis; utime and stime are the 14th and 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/** `fn`'s wall time and process `pid`'s CPU time over it, in ms, with what `fn` gave. */
export async function measured(pid, fn) {
  const [cpu, start] = [cpuMs(pid), performance.now()];
  const value = await fn();
  return { value, ms: Math.round(performance.now() - start), cpuMs: Math.round(cpuMs(pid) - cpu) };
}

/** The CPU time (user and system) Python's `json.loads` takes to read `text`, in ms: the best
 *  of three reads, in a process of its own, the file read into memory first. */
export function jsonLoadsMs(text) {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-json-'));
  try {
    const file = join(dir, 'stack.json');
    writeFileSync(file, text);
    const script = [
      'import json, sys, time',
      'data = open(sys.argv[1], "rb").read()',
      'spent = []',
      'for _ in range(3):',
      '    start = time.process_time(); json.loads(data); spent.append(time.process_time() - start)',
      'print(round(min(spent) * 1000))',
    ].join('\n');
    return Number(execFileSync('python3', ['-c', script, file], { encoding: 'utf8' }).trim());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
