// MicroPython's raw REPL over the emulated USB serial: what mpremote's `exec` does, in emulated time.
//
// Ctrl-C twice stops main.py (the firmware leaves Ctrl-C enabled for exactly this), Ctrl-A enters
// the raw REPL, the code goes in and Ctrl-D runs it; the board answers "OK", the output, \x04, any
// traceback, \x04 and ">". Because the host is this program, a snippet may run for minutes of
// emulated time and nothing times out.

/** Stop whatever runs and open the raw REPL. Returns false if the board never answered. */
export function enterRawRepl(pico, limitMs = 5000) {
  const usb = pico.usb;
  const from = usb.text.length;
  usb.write('\r\x03\x03');
  pico.runMs(50);
  usb.write('\x01');
  return pico.runUntil(() => usb.text.indexOf('raw REPL; CTRL-B to exit\r\n>', from) >= 0, limitMs);
}

/** Run `code` in the raw REPL; {out, err, ms} with ms the emulated time it took, or throws. */
export function execRaw(pico, code, limitMs = 600000) {
  const usb = pico.usb;
  if (!enterRawRepl(pico)) throw new Error('the board did not enter the raw REPL:\n' + usb.text.slice(-500));
  const from = usb.text.length;
  const t0 = pico.nowMs;
  usb.write(code);
  usb.write('\x04');
  const done = () => {
    const text = usb.text.slice(from);
    const a = text.indexOf('\x04');
    return a >= 0 && text.indexOf('\x04', a + 1) >= 0;
  };
  if (!pico.runUntil(done, limitMs)) throw new Error(`the snippet did not finish within ${limitMs} ms of emulated time`);
  const text = usb.text.slice(from);
  if (!text.startsWith('OK')) throw new Error('the raw REPL refused the code: ' + JSON.stringify(text.slice(0, 200)));
  const a = text.indexOf('\x04');
  const b = text.indexOf('\x04', a + 1);
  return { out: text.slice(2, a), err: text.slice(a + 1, b), ms: pico.nowMs - t0 };
}

/** Leave the raw REPL and soft-reset: main.py starts again (as Ctrl-D at the REPL does). */
export function softReset(pico) {
  pico.usb.write('\x02\x04');
}
