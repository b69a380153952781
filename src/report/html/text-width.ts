// How wide chart text is, as ECharts lays it out. Drawn in Node, ECharts cannot measure text and
// guesses Helvetica's widths; a reader without Helvetica or Arial sees the text in a wider face
// (a fresh Debian's default is DejaVu Sans, about a tenth wider), and labels laid out for the
// narrower one are cut or run into each other. So text is measured as DejaVu Sans, the widest
// face likely to stand in: in any narrower one it only gets more room.

/**
 * DejaVu Sans (Book, 2.37) advance widths in 1/1000 em of the printable ASCII characters, space
 * (32) to tilde (126), then of EXTRA: measured in Chromium with canvas measureText at 1000 px.
 */
const REGULAR = [
  318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337,
  838, 838, 838, 531, 1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989,
  685, 611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521,
  392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838, 318, 500, 1000, 838, 838, 838, 318, 318, 518, 518, 1000, 636,
];
const BOLD = [
  348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696, 696, 696, 696, 696, 696, 696, 696, 696, 696, 400, 400,
  838, 838, 838, 580, 1000, 774, 762, 734, 830, 683, 683, 821, 837, 372, 372, 775, 637, 995, 837, 850, 733, 850, 770, 720, 682, 812, 774, 1103,
  771, 724, 725, 457, 365, 457, 838, 500, 500, 675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687, 716, 716, 493, 595,
  478, 712, 652, 924, 645, 652, 582, 712, 365, 712, 838, 380, 500, 1000, 838, 838, 838, 380, 380, 657, 657, 1000, 696,
];
const EXTRA = "·–—≤≥×’‘“”…£";

function widths(table: readonly number[]): Map<string, number> {
  const map = new Map<string, number>();
  for (let c = 32; c < 127; c++) map.set(String.fromCharCode(c), table[c - 32]!);
  [...EXTRA].forEach((ch, i) => map.set(ch, table[95 + i]!));
  return map;
}
const FACES = { regular: widths(REGULAR), bold: widths(BOLD) };

/** Width in px of `text` in DejaVu Sans at the CSS `font` ECharts asks about ("bold 12px ..."). */
export function dejaVuWidth(text: string, font: string): number {
  const size = Number(/(\d+(?:\.\d+)?)px/.exec(font)?.[1] ?? 12);
  const face = /\b(bold|[6-9]00)\b/.test(font) ? FACES.bold : FACES.regular;
  let em = 0;
  // a character outside the table (a Welsh letter, an emoji) counts a whole em: never too little
  for (const ch of text) em += face.get(ch) ?? 1000;
  return (em / 1000) * size;
}
