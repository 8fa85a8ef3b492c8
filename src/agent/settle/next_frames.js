// The probe of a page's next frames (frames.rs says what it waits for and why): `since` (ms),
// `asked` (ms since the epoch, or null), `readCap` (ms), `then`, a function to run once the
// frames passed when the page is not leaving (null for none), and `shown`: the probe is for
// what the page's being shown set off, so a next frame and task already past since it was
// shown (the page watch's count) are not waited for again.
async (since, asked, readCap, then, shown) => {
  const timers = window[Symbol.for('navguard.timers')];
  const later = timers ? timers.later : setTimeout;
  const forget = timers ? timers.forget : clearTimeout;
  const task = () => new Promise(done => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => done();
      channel.port2.postMessage(null);
  });
  const frame = () => document.hidden ? task() : new Promise(done => {
      const fallback = later(done, 100);
      requestAnimationFrame(() => task().then(() => { forget(fallback); done(); }));
  });
  const framesSinceShown = window[Symbol.for('navguard.shown')];
  const quiet = async (past) => {
      if (!past) await frame();
      if (timers && await timers.settled(since, 300)) await frame();
  };
  await quiet(shown === true && typeof framesSinceShown === 'function' && framesSinceShown());
  const reads = window[Symbol.for('navguard.reading')];
  const reading = typeof reads === 'function' && asked !== null ? await reads(asked, readCap) : null;
  if (reading !== null) await quiet(false);
  const tell = window[Symbol.for('navguard.leaving')];
  const pending = window[Symbol.for('navguard.asked')];
  const leaving = typeof tell === 'function' ? tell() : null;
  const after = async () => { try { return then === null ? null : await then(); } catch { return null; } };
  return {
      leaving,
      asked: typeof pending === 'function' && asked !== null ? pending(asked) : [],
      reading: reading || [],
      then: leaving === null ? await after() : null,
  };
}
