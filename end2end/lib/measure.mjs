// Measurements the browser benchmarks share.

/**
 * Frames per second while the element `scrollerId` is scrolled down through all its content
 * and back at a steady pace for `seconds`, one step per animation frame.
 */
export function scrollFps(page, scrollerId, seconds) {
  return page.evaluate(([id, seconds]) => new Promise((resolve) => {
    const scroller = document.getElementById(id);
    let frames = 0;
    const start = performance.now();
    const step = (now) => {
      frames++;
      const t = (now - start) / 1000;
      const phase = (t / seconds) * 2;
      scroller.scrollTop = (phase < 1 ? phase : 2 - phase) * (scroller.scrollHeight - scroller.clientHeight);
      if (t < seconds) requestAnimationFrame(step);
      else resolve(frames / t);
    };
    requestAnimationFrame(step);
  }), [scrollerId, seconds]);
}
