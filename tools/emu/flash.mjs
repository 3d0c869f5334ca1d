// The Pico's 2 MB of QSPI flash: UF2 loading, and erase/program through the boot ROM's routines.
//
// rp2040js reads the flash through XIP but ignores the SSI commands that erase and program it, so
// on its own every littlefs write (the saved game, board.json) would vanish. pico-sdk's
// hardware_flash never talks to the SSI itself for that: it looks the routines up by two-letter
// code in the boot ROM's function table and calls them (from RAM, interrupts off). We put a BKPT
// at the first instruction of `RE` (flash_range_erase) and `RP` (flash_range_program), do the
// work on rp2040.flash when the core reaches them, and return to the caller (LR). The other flash
// routines (`IF`, `EX`, `FC`, `CX`) only switch the flash interface and run as they are.
//
// Real flash takes time, and code cannot run from flash meanwhile: a W25Q16JV erases a 4 kB
// sector in 45 ms typical (400 ms max), a 64 kB block in 150 ms, programs a 256-byte page in
// 0.4 ms. That time is added to the emulated clock (FlashHooks.busyNanos, taken by the run loop),
// so a save measured on the emulator costs what it costs on a Pico.

export const FLASH_BASE = 0x10000000;
// RPI_PICO's littlefs: from flash offset 0xa0000 to the end of its 2 MB, 4 kB blocks.
export const FS_OFFSET = 0xa0000;
export const FS_BLOCK = 4096;
export const FS_BLOCKS = 352;
export const FLASH_SIZE = 2 * 1024 * 1024;

const SECTOR = 4096;
const PAGE = 256;
// W25Q16JV typical times (datasheet table 9.7), in nanoseconds.
export const SECTOR_ERASE_NS = 45e6;
export const BLOCK64_ERASE_NS = 150e6;
export const PAGE_PROGRAM_NS = 0.4e6;

const BKPT_ERASE = 0x52; // 'R'
const BKPT_PROGRAM = 0x50; // 'P'

/** {address: payload} blocks of a UF2 file, written into `flash` (a Uint8Array from offset 0). */
export function loadUf2(uf2, flash) {
  let blocks = 0;
  for (let at = 0; at + 512 <= uf2.length; at += 512) {
    const view = new DataView(uf2.buffer, uf2.byteOffset + at, 512);
    if (view.getUint32(0, true) !== 0x0a324655 || view.getUint32(4, true) !== 0x9e5d5157) {
      throw new Error(`not a UF2 block at byte ${at}`);
    }
    const address = view.getUint32(12, true);
    const size = view.getUint32(16, true);
    if (address < FLASH_BASE || address + size > FLASH_BASE + FLASH_SIZE) {
      throw new Error(`UF2 block at byte ${at} writes outside the flash (0x${address.toString(16)})`);
    }
    flash.set(uf2.subarray(at + 32, at + 32 + size), address - FLASH_BASE);
    blocks++;
  }
  if (!blocks) throw new Error('the UF2 file holds no blocks');
  return blocks;
}

/** Address of the boot ROM routine with two-letter code `code` (e.g. "RE"), from its table. */
export function romFunction(bootrom, code) {
  const byte = (at) => (bootrom[at >> 2] >>> ((at & 3) * 8)) & 0xff;
  const half = (at) => byte(at) | (byte(at + 1) << 8);
  const wanted = code.charCodeAt(0) | (code.charCodeAt(1) << 8);
  for (let at = half(0x14); ; at += 4) {
    const entry = half(at);
    if (entry === 0) throw new Error(`the boot ROM has no ${code} routine`);
    if (entry === wanted) return half(at + 2) & ~1;
  }
}

function patchBkpt(bootrom, address, imm) {
  const word = address >> 2;
  const shift = (address & 2) * 8;
  bootrom[word] = (bootrom[word] & ~(0xffff << shift)) | ((0xbe00 | imm) << shift);
}

/** Boot ROM erase/program routines done on rp2040.flash. Install once per RP2040 instance. */
export class FlashHooks {
  constructor(rp2040, { timings = true } = {}) {
    this.rp2040 = rp2040;
    this.timings = timings;
    this.busyNanos = 0; // flash time not yet added to the clock (the run loop takes it)
    this.operations = 0; // erases + programs
    this.erasedBytes = 0;
    this.programmedBytes = 0;
    // (kind, offset, count, undo) after each erase/program, for power-cut tests: undo(keep) leaves
    // only the first `keep` fraction of the operation done, as a cut in the middle of it would.
    this.onWrite = null;
    const { bootrom } = rp2040;
    this.eraseAt = romFunction(bootrom, 'RE');
    this.programAt = romFunction(bootrom, 'RP');
    patchBkpt(bootrom, this.eraseAt, BKPT_ERASE);
    patchBkpt(bootrom, this.programAt, BKPT_PROGRAM);
    const previous = rp2040.onBreak;
    rp2040.onBreak = (code) => {
      const { core } = rp2040;
      if (code === BKPT_ERASE && core.PC - 2 === this.eraseAt) this.erase(core.registers);
      else if (code === BKPT_PROGRAM && core.PC - 2 === this.programAt) this.program(core.registers);
      else return previous(code);
      core.PC = core.LR & ~1; // return from the routine
    };
  }

  // flash_range_erase(addr, count, block_size, block_cmd): 64 kB block erases where aligned and
  // whole, 4 kB sector erases elsewhere, as the boot ROM does.
  erase(r) {
    const offset = r[0] & 0xffffff;
    const count = r[1];
    const block = r[2];
    const flash = this.rp2040.flash;
    const old = this.onWrite ? flash.slice(offset, offset + count) : null;
    flash.fill(0xff, offset, offset + count);
    let at = offset;
    while (at < offset + count) {
      if (block > SECTOR && at % block === 0 && offset + count - at >= block) {
        this.busyNanos += BLOCK64_ERASE_NS * (block / 65536);
        at += block;
      } else {
        this.busyNanos += SECTOR_ERASE_NS;
        at += SECTOR;
      }
    }
    if (!this.timings) this.busyNanos = 0;
    this.erasedBytes += count;
    this.operations++;
    if (this.onWrite) this.onWrite('erase', offset, count, (keep) => this._undo(offset, old, keep));
  }

  // flash_range_program(addr, data, count): NOR flash only clears bits, so the data is ANDed in.
  program(r) {
    const offset = r[0] & 0xffffff;
    const data = r[1];
    const count = r[2];
    const { rp2040 } = this;
    const flash = rp2040.flash;
    const old = this.onWrite ? flash.slice(offset, offset + count) : null;
    for (let i = 0; i < count; i++) flash[offset + i] &= rp2040.readUint8(data + i);
    this.busyNanos += PAGE_PROGRAM_NS * Math.ceil(count / PAGE);
    if (!this.timings) this.busyNanos = 0;
    this.programmedBytes += count;
    this.operations++;
    if (this.onWrite) this.onWrite('program', offset, count, (keep) => this._undo(offset, old, keep));
  }

  // Put back the bytes past the first `keep` fraction of an operation.
  _undo(offset, old, keep) {
    const done = Math.floor(old.length * keep);
    this.rp2040.flash.set(old.subarray(done), offset + done);
  }
}
