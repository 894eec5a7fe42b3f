// Measurements the browser benchmarks share. Frames are counted from Chromium's own tracing
// (the frames its compositor presented), and input goes through Chromium's input pipeline
// (CDP's Input domain, which Playwright's mouse uses), never events made in page JavaScript.

const CATEGORIES = ['cc', 'benchmark', 'disabled-by-default-devtools.timeline.frame', 'blink.user_timing'];

/**
 * Starts tracing the page's frames. `stop()` ends it and returns a `FrameTrace`. Start it before
 * a navigation to see the page's first frames.
 */
export async function traceFrames(page) {
  const cdp = await page.context().newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', ({ value }) => {
    for (const e of value) {
      if ((e.name === 'PipelineReporter' && e.ph === 'b') || e.cat === 'blink.user_timing') events.push(e);
    }
  });
  await cdp.send('Tracing.start', { transferMode: 'ReportEvents', traceConfig: { includedCategories: CATEGORIES } });
  return {
    async stop() {
      const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
      await cdp.send('Tracing.end');
      await complete;
      await cdp.detach();
      return new FrameTrace(events);
    },
  };
}

/** A trace's presented frames and the page's `performance.mark`s, in the trace's clock (µs). */
export class FrameTrace {
  constructor(events) {
    // One compositor frame has several reporters; a frame counts once, by its sequence number,
    // when Chromium presented it with the page's updates (STATE_PRESENTED_ALL).
    const presented = new Map();
    for (const e of events) {
      const r = e.name === 'PipelineReporter' && e.args?.frame_reporter;
      if (r && r.state === 'STATE_PRESENTED_ALL') {
        const key = `${r.frame_source}:${r.frame_sequence}`;
        presented.set(key, Math.min(presented.get(key) ?? Infinity, e.ts));
      }
    }
    this.frames = [...presented.values()].sort((a, b) => a - b);
    this.marks = new Map();
    for (const e of events) {
      if (e.cat === 'blink.user_timing' && !this.marks.has(e.name)) this.marks.set(e.name, e.ts);
    }
  }

  /** The trace time of the page's first `performance.mark(name)`; throws if there is none. */
  mark(name) {
    const ts = this.marks.get(name);
    if (ts === undefined) throw new Error(`the trace holds no performance mark "${name}" (marks: ${[...this.marks.keys()].join(', ')})`);
    return ts;
  }

  /** Frames presented per second between two marks. */
  fps(fromMark, toMark) {
    const from = this.mark(fromMark), to = this.mark(toMark);
    const n = this.frames.filter((ts) => ts >= from && ts <= to).length;
    return n / ((to - from) / 1e6);
  }

  /** Milliseconds from a mark to the first frame presented after another (or the same) mark. */
  presentedAfter(fromMark, afterMark = fromMark) {
    const after = this.mark(afterMark);
    const frame = this.frames.find((ts) => ts >= after);
    if (frame === undefined) throw new Error(`no frame was presented after "${afterMark}"`);
    return (frame - this.mark(fromMark)) / 1000;
  }
}

/**
 * Sends input through CDP's Input domain at a display's pace (one event every 16 ms) for
 * `seconds`, without waiting for each to be handled (a user's mouse does not wait for the page
 * either): `eventAt(t, step)` gives each `Input.dispatchMouseEvent` (or null for none). Every
 * `pauseEvery` steps, `pause()` runs while no input is sent. Resolves once every event is handled.
 */
export async function sendInput(page, seconds, eventAt, { pauseEvery = 0, pause = async () => {} } = {}) {
  const cdp = await page.context().newCDPSession(page);
  const sent = [];
  const start = Date.now();
  let next = start;
  for (let step = 0; Date.now() - start < seconds * 1000; step++) {
    const event = eventAt((Date.now() - start) / 1000, step);
    if (event) sent.push(cdp.send('Input.dispatchMouseEvent', event));
    if (pauseEvery && step % pauseEvery === pauseEvery - 1) {
      await pause();
      next = Date.now();
    }
    next += 16;
    await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
  }
  await Promise.all(sent);
  await cdp.detach();
}

/** Marks the page's timeline (it shows in the trace) and waits for the mark to be made. */
export function mark(page, name) {
  return page.evaluate((n) => performance.mark(n), name);
}

/**
 * Scrolls the element `scrollerId` down with the mouse wheel for `seconds`, one wheel event
 * every 16 ms sent through CDP as a user's wheel would come. Returns the frames Chromium
 * presented per second meanwhile, and checks, every few steps in the frame that shows them,
 * that the rows on screen are the ones at the scroll position: the top row in view is the row
 * whose `data-index` is scrollTop / rowHeight (the table unfiltered). Any mismatch is returned.
 */
export async function scrollFps(page, scrollerId, seconds, { rowHeight = 30, delta = 400 } = {}) {
  // In view first: the wheel goes where the pointer is, as a user's would.
  await page.locator(`#${scrollerId}`).scrollIntoViewIfNeeded();
  const box = await page.locator(`#${scrollerId}`).boundingBox();
  const x = box.x + box.width / 2, y = box.y + box.height / 2;
  await page.mouse.move(x, y);
  await page.evaluate((id) => { document.getElementById(id).scrollTop = 0; }, scrollerId);
  const trace = await traceFrames(page);
  await mark(page, 'ferry:scroll-start');
  const mismatches = [];
  let checks = 0;
  const check = async () => {
    const seen = await page.evaluate(([id, rowHeight]) => new Promise((resolve) => requestAnimationFrame(() => {
      const scroller = document.getElementById(id);
      const rect = scroller.getBoundingClientRect();
      const row = document.elementFromPoint(rect.left + 20, rect.top + 2)?.closest('[data-index]');
      resolve({ scrollTop: scroller.scrollTop, expected: Math.floor((scroller.scrollTop + 2) / rowHeight), shown: row ? Number(row.dataset.index) : null });
    })), [scrollerId, rowHeight]);
    checks++;
    if (seen.shown !== seen.expected) mismatches.push(seen);
  };
  await sendInput(page, seconds, () => ({ type: 'mouseWheel', x, y, deltaX: 0, deltaY: delta }), { pauseEvery: 30, pause: check });
  await mark(page, 'ferry:scroll-end');
  await check();
  const frames = await trace.stop();
  const scrolled = await page.evaluate((id) => document.getElementById(id).scrollTop, scrollerId);
  if (scrolled < delta) throw new Error(`#${scrollerId} did not scroll (scrollTop ${scrolled})`);
  return { fps: frames.fps('ferry:scroll-start', 'ferry:scroll-end'), checks, mismatches, scrolled };
}
